import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { migrationKey } from '#shared/migration/keys.js';
import { runMigrationsCommand } from '#tools/migrations/command.js';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { losingConsumer } from '../support/losing-consumer.js';

// `npm run migrations` against a running local server (found through its data directory):
// migrations whose message was lost are listed, one is resumed and completes, one is failed
// and its documents can be migrated again.
const SET = '/v2/notifications/config/set';
const MIGRATE = '/v2/organizations/documents/migrate';
const STATUS = '/v2/organizations/documents/migrate/status';
const ORG = 'org cli/1';

let dataDir: string;
let service: LocalService;
const lost = new Set<string>();

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'migrations-cli-'));
  service = await startLocalService({ inMemory: false, dataDir, consumer: losingConsumer(lost) });
});
afterAll(async () => {
  await service?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const run = async (...args: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runMigrationsCommand([...args, '--data-dir', dataDir], {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    env: {},
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
};

const ok = async (path: string, data: unknown) => {
  const response = await service.call(path, data);
  expect({ path, status: response.status, error: response.body?.error }).toEqual({
    path,
    status: 200,
    error: undefined,
  });
  return response.body.result?.data as Record<string, unknown>;
};

const status = (migrationId: unknown) => ok(STATUS, { organizationId: ORG, migrationId });

test('list-stuck, resume and fail a migration whose message was lost', async () => {
  const users = Array.from({ length: 20 }, (_, i) => `user ${i}`);
  await ok(SET, { organizationId: ORG, userIds: users, documentIds: ['doc#a', 'doc#b'], config: { inbox: 'NONE' } });
  const a = (await ok(MIGRATE, { organizationId: ORG, documentId: 'doc#a', newDocumentId: 'doc#a2' })).migrationId;
  const b = (await ok(MIGRATE, { organizationId: ORG, documentId: 'doc#b', newDocumentId: 'doc#b2' })).migrationId;
  while (!(lost.has(a as string) && lost.has(b as string))) await sleep(50);

  const listed = await run('list-stuck', '--stall-minutes', '0', '--json');
  expect(listed).toMatchObject({ code: 0, stderr: '' });
  const rows = JSON.parse(listed.stdout) as { migrationId: string; status: string; sweeper: { action: string } }[];
  expect(rows.map((row) => [row.migrationId, row.status, row.sweeper.action]).sort()).toEqual(
    [
      [a, 'pending', 'resume'],
      [b, 'pending', 'resume'],
    ].sort(),
  );
  expect((await run('list-stuck')).stdout).toMatch(
    /^No active migration without progress for 30 minutes in the running local server's store/,
  );

  const resumed = await run('resume', a as string);
  expect(resumed).toMatchObject({ code: 0, stderr: '' });
  expect(resumed.stdout).toContain(`Re-queued migration ${a}`);
  let view = await status(a);
  for (const deadline = Date.now() + 30_000; view.status !== 'completed' && Date.now() < deadline; ) {
    await sleep(100);
    view = await status(a);
  }
  expect(view).toMatchObject({ status: 'completed', moved: 20 });

  const failed = await run('fail', b as string, '--reason', 'Stopped by the on-call engineer; start it again.');
  expect(failed).toMatchObject({ code: 0, stderr: '' });
  expect(failed.stdout).toContain(`Marked migration ${b} failed`);
  expect(await status(b)).toMatchObject({
    status: 'failed',
    error: 'Stopped by the on-call engineer; start it again.',
  });
  // Its documents are free: the same migration is accepted again.
  const again = await ok(MIGRATE, { organizationId: ORG, documentId: 'doc#b', newDocumentId: 'doc#b2' });
  expect(again.migrationId).not.toBe(b);

  expect(await run('resume', a as string)).toMatchObject({
    code: 1,
    stderr: `migrations: migration ${a} is already completed: every entry was moved`,
  });
  expect(await run('fail', 'no-such-id')).toMatchObject({ code: 1, stderr: 'migrations: no migration "no-such-id"' });
  // Longer than any id: no migration, without asking DynamoDB (which refuses keys over 2,048 bytes).
  expect(await run('fail', 'm'.repeat(3_000))).toMatchObject({
    code: 1,
    stderr: `migrations: no migration "${'m'.repeat(3_000)}"`,
  });
  expect(await run('resume')).toMatchObject({ code: 2, stderr: 'migrations: resume needs a migration id.' });
  expect((await run('list-stuck', '--force')).code).toBe(2);
});

test('scrub-ended removes the skipped checkpoint that migrations which ended before the fix kept, and nothing else', async () => {
  const record = (migrationId: string, status: string) => ({
    ...migrationKey(migrationId),
    migrationId,
    organizationId: ORG,
    documentId: 'doc#old',
    newDocumentId: 'doc#new',
    status,
    moved: 1,
    skipped: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    runs: {},
    skippedCheckpoint: ['["erased user",1,"2026-01-01T00:00:00.000Z"]'],
  });
  const ids = { failed: 'old-failed', completed: 'old-completed', running: 'still-running' };
  for (const [status, migrationId] of [
    ['failed', ids.failed],
    ['completed', ids.completed],
    ['in_progress', ids.running],
  ]) {
    await service.doc.send(
      new PutCommand({ TableName: service.tables.migrations, Item: record(migrationId as string, status as string) }),
    );
  }
  const scrubbed = await run('scrub-ended', '--json');
  expect(scrubbed).toMatchObject({ code: 0, stderr: '' });
  expect((JSON.parse(scrubbed.stdout) as { scrubbed: string[] }).scrubbed.sort()).toEqual(
    [ids.completed, ids.failed].sort(),
  );
  const stored = async (migrationId: string) =>
    (
      await service.doc.send(
        new GetCommand({ TableName: service.tables.migrations, Key: migrationKey(migrationId), ConsistentRead: true }),
      )
    ).Item;
  for (const migrationId of [ids.failed, ids.completed]) {
    expect(await stored(migrationId)).not.toHaveProperty('skippedCheckpoint');
    expect(await stored(migrationId)).toMatchObject({ migrationId, moved: 1, skipped: 1 });
  }
  // An active migration still needs its checkpoint.
  expect((await stored(ids.running))?.skippedCheckpoint).toHaveLength(1);
  expect((await run('scrub-ended')).stdout).toMatch(/^Removed the skipped checkpoint of 0 ended migration\(s\) in /);
});
