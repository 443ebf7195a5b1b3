import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { dataPaths } from '#local/data-dir.js';
import { REPO_ROOT } from '#service/repository-root.js';

export interface NpmStartProcess {
  process: ChildProcess;
  baseUrl: string;
  /** What an API call needs: the content type and the data directory's credential. */
  headers: Record<string, string>;
  output: () => string;
}

/**
 * local/main.ts on a data directory as `npm start` runs it (node --import tsx), without npm in
 * between: one process, so that a signal sent to it reaches the whole twin. The caller kills
 * what is still running (`children` collects every process started).
 */
export const startNpmStartProcess = async (
  dataDir: string,
  children: ChildProcess[],
  timeoutMs = 60_000,
): Promise<NpmStartProcess> => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts', '--port', '0', '--data-dir', dataDir], {
    cwd: REPO_ROOT,
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', LOCAL_API_KEY: '', LOCAL_AUTH_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const deadline = Date.now() + timeoutMs;
  while (!output.includes('Ctrl+C stops it.')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not come up:\n${output}`);
    await sleep(50);
  }
  // The credential from the data directory: the banner shows the token to a terminal only.
  const credential = JSON.parse(await readFile(dataPaths(dataDir).credential, 'utf8')) as {
    apiKey: string;
    token: string;
  };
  return {
    process: child,
    baseUrl: output.match(/on (http:\/\/127\.0\.0\.1:\d+)/)?.[1] as string,
    headers: {
      'content-type': 'application/json',
      'x-service-api-key': credential.apiKey,
      'x-service-auth-token': credential.token,
    },
    output: () => output,
  };
};
