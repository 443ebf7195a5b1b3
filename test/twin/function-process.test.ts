import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect, test } from '@jest/globals';
import { REPO_ROOT } from '#service/repository-root.js';

// The functions' process of `npm run dev` (local/reload/function-process.ts) when the twin goes
// away before it is ready, as when a stop comes while a spare process is starting: it leaves
// quietly, without an unhandled error on the developer's terminal.

test('a functions process whose twin disconnects while it loads exits 0 and prints nothing', async () => {
  const tsx = createRequire(import.meta.url).resolve('tsx');
  const child = fork(join(REPO_ROOT, 'local', 'reload', 'function-process.ts'), [], {
    execArgv: ['--import', tsx],
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.disconnect();
  const code = await exited;
  expect(output).toBe('');
  expect(code).toBe(0);
});
