import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, test } from '@jest/globals';
import { DEFAULT_STALL_LIMIT_MS, MAX_SWEEP_RESUMES } from '#shared/jobs/stuck-policy.js';
import { type SweepDeps, sweepJobs } from '#shared/jobs/sweep.js';
import { abandonedReason } from '#shared/jobs/wording.js';
import { migrationKey } from '#shared/migration/keys.js';
import { migrationJob } from '#shared/migration/kind.js';
import type { MigrationRecord } from '#shared/migration/model.js';
import {
  CrashError,
  DST,
  h,
  type MigrationRepository,
  ORG,
  Process,
  SRC,
  sourceEntries,
  startMigration,
  useMigrationHarness,
} from './migration-fixtures.js';

const ABANDONED_REASON = abandonedReason(migrationJob);

const dynamo = useMigrationHarness({ tables: 'own', freshTablesPerTest: true });

const LIMIT_MINUTES = DEFAULT_STALL_LIMIT_MS / 60_000;
const T = Date.now();
/** A clock `minutes` after the test file started: past any lease a killed run left once past its timeout. */
const clock = (minutes: number) => () => new Date(T + minutes * 60_000);
const sweep = (minutes: number, overrides: Partial<SweepDeps<MigrationRecord>> = {}) =>
  sweepJobs(migrationJob, { repository: h.repository, queue: h.queue, now: clock(minutes), ...overrides });

/** A delivery on the queue's last attempt, killed within its first page (before any progress is saved). */
const killedInFirstPage = (id: string, minutes: number) => {
  const process = new Process({ method: 'copyEntryIf', call: 20 });
  return expect(
    h.deliver(
      id,
      { entries: process.wrap(h.store), repository: process.wrap(h.repository), pageSize: 50, now: clock(minutes) },
      { receiveCount: 5, maxReceiveCount: 5, remainingTimeMs: () => 60_000 },
    ),
  ).rejects.toBeInstanceOf(CrashError);
};

const setFields = (id: string, fields: Record<string, unknown>) =>
  dynamo.doc.send(
    new UpdateCommand({
      TableName: dynamo.tables.migrations,
      Key: migrationKey(id),
      UpdateExpression: `SET ${Object.keys(fields)
        .map((name) => `${name} = :${name}`)
        .join(', ')}`,
      ExpressionAttributeValues: Object.fromEntries(Object.entries(fields).map(([k, v]) => [`:${k}`, v])),
    }),
  );

describe('a migration that lost its message', () => {
  test('a last attempt killed in its first page, its message dead-lettered: re-queued after the stall limit, then completed', async () => {
    await h.seed(sourceEntries(120));
    const id = await h.start(ORG, SRC, DST);
    await killedInFirstPage(id, 0);
    // No watchdog: it is queued only once a page is saved. The message itself is gone.
    expect(h.queue.sent).toEqual([id]);
    expect((await h.repository.get(id))?.status).toBe('in_progress');

    expect(await sweep(LIMIT_MINUTES - 1)).toMatchObject({ candidates: 0, resumed: [], failed: [] });
    expect(await sweep(LIMIT_MINUTES + 1)).toMatchObject({ candidates: 1, resumed: [id], failed: [] });
    expect(h.queue.sent).toEqual([id, id]);
    expect(await h.repository.get(id)).toMatchObject({ status: 'in_progress', sweepResumes: 1 });
    // The next sweeps wait a stall limit for the new message to show progress.
    expect(await sweep(LIMIT_MINUTES + 6)).toMatchObject({ candidates: 1, resumed: [] });
    expect(h.queue.sent).toHaveLength(2);

    expect(await h.deliver(id, { pageSize: 50, now: clock(LIMIT_MINUTES + 2) })).toBe('completed');
    const record = await h.repository.get(id);
    expect(record).toMatchObject({ status: 'completed', moved: 120, skipped: 0 });
    expect(record?.sweepResumes).toBeUndefined();
    expect(await h.documentEntries(ORG, SRC)).toEqual([]);
    // Out of the index of active migrations: no later sweep sees it.
    expect(await sweep(10 * LIMIT_MINUTES)).toMatchObject({ candidates: 0 });
  });

  test(`no progress after ${MAX_SWEEP_RESUMES} re-queues: failed with a reason, its documents free again`, async () => {
    await h.seed(sourceEntries(120));
    const id = await h.start(ORG, SRC, DST);
    let minutes = 0;
    await killedInFirstPage(id, minutes);
    for (let resume = 1; resume <= MAX_SWEEP_RESUMES; resume++) {
      minutes += LIMIT_MINUTES + 2;
      expect(await sweep(minutes)).toMatchObject({ resumed: [id], failed: [] });
      // Each new message is taken (the lease moves updatedAt) and killed again before a page is saved.
      await killedInFirstPage(id, minutes + 1);
    }
    expect(h.queue.sent).toHaveLength(1 + MAX_SWEEP_RESUMES);

    minutes += LIMIT_MINUTES + 2;
    expect(await sweep(minutes)).toMatchObject({ resumed: [], failed: [id] });
    const record = await h.repository.get(id);
    expect(record?.status).toBe('failed');
    expect(record?.error).toMatch(/made no progress for \d+ minutes.*partly migrated\. Start it again/);
    expect(h.queue.sent).toHaveLength(1 + MAX_SWEEP_RESUMES);
    expect(await h.lockExists(ORG, SRC)).toBe(false);
    expect(await h.lockExists(ORG, DST)).toBe(false);

    // Starting it again is accepted and finishes the job.
    const again = await h.start(ORG, SRC, DST);
    expect(again).not.toBe(id);
    expect(await h.deliver(again, { now: clock(minutes + 1) })).toBe('completed');
    expect(await h.documentEntries(ORG, DST)).toHaveLength(120);
  });

  test('a saved page starts the count over', async () => {
    await h.seed(sourceEntries(120));
    const id = await h.start(ORG, SRC, DST);
    await setFields(id, { sweepResumes: MAX_SWEEP_RESUMES - 1, sweptAt: new Date(T).toISOString() });
    // Killed after its first page was saved, before its deletes: progress.
    const process = new Process({ method: 'deleteEntriesIf', call: 1 });
    await expect(
      h.deliver(id, { entries: process.wrap(h.store), repository: process.wrap(h.repository), pageSize: 50 }),
    ).rejects.toBeInstanceOf(CrashError);
    const record = await h.repository.get(id);
    expect(record?.sweepResumes).toBeUndefined();
    expect(record?.sweptAt).toBeUndefined();
  });

  test('a never-queued migration (its request died before queuing) is failed as abandoned, its locks released', async () => {
    const process = new Process({ method: 'send', call: 1 });
    await expect(
      startMigration(
        { repository: process.wrap(h.repository), queue: process.wrap(h.queue) },
        { organizationId: ORG, documentId: SRC, newDocumentId: DST },
      ),
    ).rejects.toThrow();
    expect(await h.lockExists(ORG, SRC)).toBe(true);

    const { failed } = await sweep(LIMIT_MINUTES + 1);
    expect(failed).toHaveLength(1);
    expect(await h.repository.get(failed[0] as string)).toMatchObject({ status: 'failed', error: ABANDONED_REASON });
    expect(h.queue.sent).toEqual([]);
    expect(await h.lockExists(ORG, SRC)).toBe(false);
    expect(await h.lockExists(ORG, DST)).toBe(false);
  });
});

describe('left alone', () => {
  test('a live lease, however quiet and however often re-queued', async () => {
    const id = await h.start(ORG, SRC, DST);
    // Taken (updatedAt) long ago, held until well after the sweep.
    await h.repository.acquireLease(id, 'long-run', T + 5 * LIMIT_MINUTES * 60_000, new Date(T));
    await setFields(id, { sweepResumes: MAX_SWEEP_RESUMES });
    expect(await sweep(2 * LIMIT_MINUTES)).toMatchObject({ candidates: 1, resumed: [], failed: [] });
    expect(h.queue.sent).toEqual([id]);
    expect(await h.repository.get(id)).toMatchObject({ status: 'in_progress', leaseOwner: 'long-run' });
  });

  test.each([
    ['re-queue', 0],
    ['failure', MAX_SWEEP_RESUMES],
  ])('progress between the read and the %s: nothing is written or sent', async (_name, resumes) => {
    const id = await h.start(ORG, SRC, DST);
    await setFields(id, { sweepResumes: resumes });
    // A delivery takes the migration right after the sweep's read (its lease already expired
    // again, so that only the changed updatedAt can stop the sweep).
    const racing: MigrationRepository = Object.create(h.repository);
    racing.listQuiet = async (before, limit) => {
      const found = await h.repository.listQuiet(before, limit);
      await h.repository.acquireLease(id, 'racer', T, new Date(T + 60_000));
      return found;
    };
    expect(await sweep(LIMIT_MINUTES + 1, { repository: racing })).toMatchObject({
      candidates: 1,
      resumed: [],
      failed: [],
    });
    expect(h.queue.sent).toEqual([id]);
    const record = await h.repository.get(id);
    expect(record).toMatchObject({ status: 'in_progress', leaseOwner: 'racer', sweepResumes: resumes });
    expect(record?.sweptAt).toBeUndefined();
    expect(await h.lockExists(ORG, SRC)).toBe(true);
  });

  test('two sweeps at once re-queue a migration once', async () => {
    const id = await h.start(ORG, SRC, DST);
    const reports = await Promise.all([sweep(LIMIT_MINUTES + 1), sweep(LIMIT_MINUTES + 1)]);
    expect(reports.flatMap((r) => r.resumed)).toEqual([id]);
    expect(h.queue.sent).toEqual([id, id]);
    expect((await h.repository.get(id))?.sweepResumes).toBe(1);
  });
});
