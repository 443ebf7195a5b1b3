import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, expect, test } from '@jest/globals';
import { REPO_ROOT } from '#service/repository-root.js';

// `npm start` as a developer runs it (tsx, its own process): what it prints works as printed,
// and a signal stops it cleanly.
let child: ChildProcess | undefined;

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

const exited = (process: ChildProcess) =>
  new Promise<number | null>((resolve) => process.once('exit', (code) => resolve(code)));

test('prints the URL, credential and a curl that works; SIGINT stops it with exit code 0', async () => {
  const tsx = join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
  const started = spawn(tsx, ['local/main.ts', '--in-memory', '--port', '0'], {
    cwd: REPO_ROOT,
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', LOCAL_API_KEY: '', LOCAL_AUTH_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = started;
  let output = '';
  started.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  started.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + 20_000;
  while (!output.includes('Ctrl+C stops it.')) {
    if (Date.now() > deadline || started.exitCode !== null) throw new Error(`npm start did not come up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const baseUrl = output.match(/on (http:\/\/127\.0\.0\.1:\d+)/)?.[1] as string;
  const apiKey = output.match(/x-service-api-key: +(ak_\S+)/)?.[1] as string;
  const token = output.match(/x-service-auth-token: +(st_\S+)/)?.[1] as string;
  expect(output).toContain('in memory (discarded on exit)');

  // The printed curl example, sent as printed.
  const curlBody = output.match(/-d '(.*)'/)?.[1] as string;
  const headers = { 'content-type': 'application/json', 'x-service-api-key': apiKey, 'x-service-auth-token': token };
  const set = await fetch(`${baseUrl}/v2/notifications/config/set`, { method: 'POST', headers, body: curlBody });
  expect(set.status).toBe(200);
  const get = await fetch(`${baseUrl}/v2/notifications/config/get`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ data: { organizationId: 'acme', userId: 'alice', documentIds: ['doc-1'] } }),
  });
  expect(((await get.json()) as { result: { data: { config: unknown }[] } }).result.data[0]?.config).toEqual({
    email: 'NONE',
  });
  // The change, published through the EventBridge twin: one printed line.
  const eventDeadline = Date.now() + 20_000;
  while (!/^event {2}Notification Config Changed {2}\S+$/m.test(output) && Date.now() < eventDeadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(output.split('\n').filter((line) => line.startsWith('event '))).toEqual([
    expect.stringMatching(/^event {2}Notification Config Changed {2}\S+$/),
  ]);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const requestLines = output.split('\n').filter((line) => /^(GET|POST) /.test(line));
  expect(requestLines).toEqual([
    expect.stringMatching(/^POST \/v2\/notifications\/config\/set 200 \d+ms$/),
    expect.stringMatching(/^POST \/v2\/notifications\/config\/get 200 \d+ms$/),
  ]);

  const exit = exited(started);
  started.kill('SIGINT');
  expect(await exit).toBe(0);
  expect(output).toContain('Stopped.');
});
