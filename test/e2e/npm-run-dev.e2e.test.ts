import { type ChildProcess, spawn } from 'node:child_process';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { dataPaths } from '#local/data-dir.js';
import { dbPathHolder, freePort } from '#local/dynamodb-local.js';
import { assertPortFree } from '#local/ports.js';
import { REPO_ROOT } from '#service/repository-root.js';

// `npm run dev` as a developer uses it: saving a file under local/ (or functions/, shared/,
// tools/) restarts the service, twice in quick succession too, and it comes back on the same
// endpoints with the same data and credential; Ctrl+C then stops it cleanly.
// The saved file is a scratch file of this test, removed afterwards (not a .ts: nothing else
// in the checkout picks it up meanwhile).
const PROBE = join(REPO_ROOT, 'local', `dev-watch-probe-${process.pid}.txt`);

let dataDir: string;
let dev: ChildProcess | undefined;
let output = '';

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'npm-run-dev-'));
});
afterAll(async () => {
  await rm(PROBE, { force: true });
  if (dev?.pid && dev.exitCode === null && dev.signalCode === null) process.kill(-dev.pid, 'SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

/** The banner printed after the last restart that `since` saw, once the service is up again. */
const servingAfter = async (since: number, restarted: boolean): Promise<string> => {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const text = output.slice(since);
    const restart = text.lastIndexOf('[tsx]');
    const banner = text.indexOf('Ctrl+C stops it.', Math.max(restart, 0));
    if ((restart >= 0 || !restarted) && banner >= 0) return text.slice(Math.max(restart, 0), banner);
    if (Date.now() > deadline || dev?.exitCode !== null) throw new Error(`npm run dev is not serving:\n${output}`);
    await sleep(100);
  }
};

const credentialOf = (banner: string) => ({
  'x-service-api-key': banner.match(/x-service-api-key: +(ak_\S+)/)?.[1] as string,
  'x-service-auth-token': banner.match(/x-service-auth-token: +(st_\S+)/)?.[1] as string,
});

test('a save restarts the service with its data and credential; Ctrl+C stops it cleanly', async () => {
  const [api, dynamodb, sqs] = [await freePort(), await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    LOCAL_API_KEY: '',
    LOCAL_AUTH_TOKEN: '',
  };
  delete env.NODE_OPTIONS;
  const args = ['--data-dir', dataDir, '--port', `${api}`, '--dynamodb-port', `${dynamodb}`, '--sqs-port', `${sqs}`];
  // Its own process group, as in a terminal: Ctrl+C reaches every process of it.
  dev = spawn('npm', ['run', 'dev', '--', ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  // 'close': every process that shares its output has exited, the service included.
  const exited = new Promise<void>((resolve) => dev?.once('close', () => resolve()));
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  dev.stdout?.on('data', collect);
  dev.stderr?.on('data', collect);

  const first = await servingAfter(0, false);
  const baseUrl = `http://127.0.0.1:${api}`;
  const headers = { 'content-type': 'application/json', ...credentialOf(first) };
  const set = await fetch(`${baseUrl}/v2/notifications/config/set`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      data: { organizationId: 'acme', userIds: ['alice'], documentIds: ['doc-1'], config: { email: 'NONE' } },
    }),
  });
  expect(set.status).toBe(200);

  // Two saves close together: the second lands while the first restart is still stopping.
  const mark = output.length;
  await writeFile(PROBE, 'first save\n');
  await sleep(300);
  await appendFile(PROBE, 'second save\n');
  await sleep(300);
  const again = await servingAfter(mark, true);

  expect(credentialOf(again)).toEqual(credentialOf(first));
  expect(again).toContain('credential   from the data directory');
  expect(again).toMatch(new RegExp(`DynamoDB +http://127\\.0\\.0\\.1:${dynamodb} `));
  expect(again).toMatch(new RegExp(`SQS +http://127\\.0\\.0\\.1:${sqs}\\n`));
  const get = await fetch(`${baseUrl}/v2/notifications/config/get`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ data: { organizationId: 'acme', userId: 'alice', documentIds: ['doc-1'] } }),
  });
  expect(((await get.json()) as { result: { data: { config: unknown }[] } }).result.data[0]?.config).toEqual({
    email: 'NONE',
  });

  // Removing the scratch file is a save too; once back, Ctrl+C.
  const removed = output.length;
  await rm(PROBE);
  await sleep(300);
  await servingAfter(removed, true);
  const stopping = output.length;
  process.kill(-(dev.pid as number), 'SIGINT');
  await exited;
  const stop = output.slice(stopping);
  expect(stop).toContain('Stopped.');
  expect(stop).not.toContain('Stopping now.');
  // Nothing left behind: the JVM's lock and all three ports are free.
  expect(await dbPathHolder(dataPaths(dataDir).dynamo)).toBeUndefined();
  for (const [service, port] of [
    ['api', api],
    ['dynamodb', dynamodb],
    ['sqs', sqs],
  ] as const) {
    await expect(assertPortFree(service, '127.0.0.1', port)).resolves.toBeUndefined();
  }
}, 240_000);
