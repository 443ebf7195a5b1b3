import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { dataPaths } from '#local/data-dir.js';
import { dbPathHolder } from '#local/dynamodb-local.js';
import { type NpmStartProcess, startNpmStartProcess } from '../support/npm-start-process.js';

// The twin's promise on stopping (docs/development.md): a SIGTERM (or Ctrl+C) the moment it has
// answered loses nothing it answered, the migration's queued message included, so the restarted
// server finishes the migration; a SIGKILL may lose the last moments, and the restart after it
// comes up and serves what is stored.
const ORG = 'acme';
const USERS = Array.from({ length: 150 }, (_, i) => `user-${String(i).padStart(3, '0')}`);

type Server = NpmStartProcess;

let dataDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'npm-start-stop-'));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

const start = (): Promise<Server> => startNpmStartProcess(dataDir, children, 30_000);

const post = (server: Server, path: string, data: unknown) =>
  fetch(`${server.baseUrl}${path}`, { method: 'POST', headers: server.headers, body: JSON.stringify({ data }) });

const ok = async (server: Server, path: string, data: unknown) => {
  const response = await post(server, path, data);
  const body = (await response.json()) as { result?: { data: unknown } };
  expect({ path, status: response.status }).toEqual({ path, status: 200 });
  return body.result?.data;
};

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });

/** Until its DynamoDB Local (a JVM) is gone too: only then are the files free. */
const filesFree = async () => {
  while ((await dbPathHolder(dataPaths(dataDir).dynamo)) !== undefined) await sleep(50);
};

const configOf = async (server: Server, userId: string, documentId: string) =>
  (
    (await ok(server, '/v2/notifications/config/get', { organizationId: ORG, userId, documentIds: [documentId] })) as {
      config: Record<string, string>;
    }[]
  )[0]?.config;

test('a migration and a set answered just before a SIGTERM are kept: the restart finishes the migration', async () => {
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
  first.process.kill('SIGTERM');
  expect(migrate.status).toBe(200);
  const { migrationId } = ((await migrate.json()) as { result: { data: { migrationId: string } } }).result.data;
  expect(await exited(first.process)).toEqual({ code: 0, signal: null });
  await filesFree();

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
  await exited(second.process);
}, 200_000);

test('after a SIGKILL the restart comes up and serves what was stored', async () => {
  const first = await start();
  await ok(first, '/v2/notifications/config/set', {
    organizationId: ORG,
    userIds: ['killed'],
    documentIds: ['doc-kill'],
    config: { email: 'NONE' },
  });
  first.process.kill('SIGKILL');
  expect(await exited(first.process)).toEqual({ code: null, signal: 'SIGKILL' });
  await filesFree();

  const second = await start();
  try {
    expect(await configOf(second, 'killed', 'doc-kill')).toEqual({ email: 'NONE' });
    await ok(second, '/v2/notifications/config/set', {
      organizationId: ORG,
      userIds: ['killed'],
      documentIds: ['doc-kill'],
      config: { email: 'ALL' },
    });
    expect(await configOf(second, 'killed', 'doc-kill')).toEqual({ email: 'ALL' });
  } finally {
    second.process.kill('SIGTERM');
    await exited(second.process);
  }
}, 120_000);
