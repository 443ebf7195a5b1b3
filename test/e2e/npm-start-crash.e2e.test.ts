import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { dataPaths } from '#local/data-dir.js';
import { dbPathHolder } from '#local/dynamodb-local.js';
import { REPO_ROOT } from '#service/repository-root.js';

// `npm start` killed (SIGKILL: no shutdown code runs) the moment it has answered a migrate
// request. The queue twin acknowledged the migration's message before that answer, so, as
// with SQS, the message must survive: the restarted server finishes the migration.
const ORG = 'acme';
const USERS = Array.from({ length: 150 }, (_, i) => `user-${String(i).padStart(3, '0')}`);

interface Server {
  process: ChildProcess;
  baseUrl: string;
  headers: Record<string, string>;
  output: () => string;
}

let dataDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'npm-start-crash-'));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

/** local/main.ts as `npm start` runs it (node --import tsx), without npm in between. */
const start = async (): Promise<Server> => {
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
  const deadline = Date.now() + 30_000;
  while (!output.includes('Ctrl+C stops it.')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not come up:\n${output}`);
    await sleep(50);
  }
  return {
    process: child,
    baseUrl: output.match(/on (http:\/\/127\.0\.0\.1:\d+)/)?.[1] as string,
    headers: {
      'content-type': 'application/json',
      'x-service-api-key': output.match(/x-service-api-key: +(ak_\S+)/)?.[1] as string,
      'x-service-auth-token': output.match(/x-service-auth-token: +(st_\S+)/)?.[1] as string,
    },
    output: () => output,
  };
};

const post = (server: Server, path: string, data: unknown) =>
  fetch(`${server.baseUrl}${path}`, { method: 'POST', headers: server.headers, body: JSON.stringify({ data }) });

const ok = async (server: Server, path: string, data: unknown) => {
  const response = await post(server, path, data);
  const body = (await response.json()) as { result?: { data: unknown } };
  expect({ path, status: response.status }).toEqual({ path, status: 200 });
  return body.result?.data;
};

const killed = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.signalCode);
    else child.once('exit', (_code, signal) => resolve(signal));
  });

test('a migration acknowledged just before a SIGKILL completes after the restart', async () => {
  const first = await start();
  await ok(first, '/v2/notifications/config/set', {
    organizationId: ORG,
    userIds: USERS,
    documentIds: ['doc-old'],
    config: { email: 'NONE', inbox: 'ALL' },
  });

  const migrate = await post(first, '/v2/organizations/documents/migrate', {
    organizationId: ORG,
    documentId: 'doc-old',
    newDocumentId: 'doc-new',
  });
  // The moment the answer's head arrives, before anything else can run in the server.
  first.process.kill('SIGKILL');
  expect(migrate.status).toBe(200);
  const { migrationId } = ((await migrate.json()) as { result: { data: { migrationId: string } } }).result.data;
  expect(await killed(first.process)).toBe('SIGKILL');
  // Its DynamoDB Local (a JVM) dies with it, a moment later: only then are the files free.
  while ((await dbPathHolder(dataPaths(dataDir).dynamo)) !== undefined) await sleep(50);

  const second = await start();
  // The run that the kill cut short may still hold its lease on the migration (its deadline
  // plus a grace period, over a minute): the restored message waits for it, then finishes.
  const deadline = Date.now() + 150_000;
  let view: { status: string; moved?: number; skipped?: number } = { status: 'unknown' };
  while (Date.now() < deadline) {
    view = (await ok(second, '/v2/organizations/documents/migrate/status', { organizationId: ORG, migrationId })) as {
      status: string;
    };
    if (view.status === 'completed' || view.status === 'failed') break;
    await sleep(250);
  }
  expect(view).toMatchObject({ status: 'completed', moved: USERS.length, skipped: 0 });

  for (const userId of [USERS[0], USERS[77], USERS.at(-1)]) {
    const [moved, old] = (await ok(second, '/v2/notifications/config/get', {
      organizationId: ORG,
      userId,
      documentIds: ['doc-new', 'doc-old'],
    })) as { config: Record<string, string> }[];
    expect({ userId, moved: moved?.config, old: old?.config }).toEqual({
      userId,
      moved: { email: 'NONE', inbox: 'ALL' },
      old: {},
    });
  }
  // The documents are free again: a new migration of the target starts.
  expect(
    await ok(second, '/v2/organizations/documents/migrate', {
      organizationId: ORG,
      documentId: 'doc-new',
      newDocumentId: 'doc-newer',
    }),
  ).toEqual({ migrationId: expect.any(String) });

  second.process.kill('SIGTERM');
  await killed(second.process);
}, 200_000);
