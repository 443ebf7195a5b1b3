import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '#local/dynamodb-local.js';

/**
 * `npm run dev` in its own process group, as a terminal runs it, on free ports, with what it
 * prints collected: for the test of the reload and the bench that times it.
 */
export interface NpmRunDev {
  child: ChildProcess;
  ports: { api: number; dynamodb: number; sqs: number };
  baseUrl: string;
  /** Everything printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the output after `since` once it matches `pattern`; throws past the deadline or on exit. */
  waitFor(pattern: RegExp, since: number, timeoutMs?: number): Promise<string>;
  /** The credential headers, from the data directory (the banner shows the token to a terminal only). */
  headers(): Record<string, string>;
  /** Resolves once every process that shares its output has exited. */
  closed: Promise<void>;
  /** Ctrl+C: SIGINT to the whole group. */
  interrupt(): void;
  /** Kills whatever is left of the group. */
  kill(): void;
}

export const startNpmRunDev = async ({
  cwd,
  dataDir,
  env: extraEnv = {},
  command = ['npm', 'run', 'dev', '--'],
}: {
  cwd: string;
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** What runs, before the twin's options (the bench times an older `npm run dev` too). */
  command?: string[];
}): Promise<NpmRunDev> => {
  const ports = { api: await freePort(), dynamodb: await freePort(), sqs: await freePort() };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    LOCAL_API_KEY: '',
    LOCAL_AUTH_TOKEN: '',
    ...extraEnv,
  };
  delete env.NODE_OPTIONS;
  const args = ['--data-dir', dataDir, '--port', `${ports.api}`];
  args.push('--dynamodb-port', `${ports.dynamodb}`, '--sqs-port', `${ports.sqs}`);
  // Its own process group, as in a terminal: Ctrl+C reaches every process of it.
  const [program = 'npm', ...before] = command;
  const child = spawn(program, [...before, ...args], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  // 'close': every process that shares its output has exited, the twin and the functions included.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const group = () => -(child.pid as number);
  const waitFor = async (pattern: RegExp, since: number, timeoutMs = 90_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = output.slice(since);
      if (pattern.test(text)) return text;
      if (Date.now() > deadline || child.exitCode !== null) {
        throw new Error(`npm run dev never printed ${pattern}:\n${output.slice(since)}`);
      }
      await sleep(25);
    }
  };
  const headers = () => {
    const saved = JSON.parse(readFileSync(join(dataDir, 'local-credential.json'), 'utf8')) as {
      apiKey: string;
      token: string;
    };
    return {
      'content-type': 'application/json',
      'x-service-api-key': saved.apiKey,
      'x-service-auth-token': saved.token,
    };
  };
  return {
    child,
    ports,
    baseUrl: `http://127.0.0.1:${ports.api}`,
    output: () => output,
    waitFor,
    headers,
    closed,
    interrupt: () => process.kill(group(), 'SIGINT'),
    kill: () => {
      try {
        process.kill(group(), 'SIGKILL');
      } catch {
        // Already gone.
      }
    },
  };
};
