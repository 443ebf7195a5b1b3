import { describe, expect, test } from '@jest/globals';
import {
  at,
  CrashError,
  configOf,
  contents,
  DST,
  h,
  later,
  ORG,
  Process,
  SRC,
  sourceEntries,
  summary,
  useMigrationHarness,
  user,
} from './migration-fixtures.js';

useMigrationHarness();

describe('a crash at any step, then the retry', () => {
  // 120 entries in pages of 50, two of them conflicting (skipped). Each plan crashes the
  // process at one step; the queue's retry (a new run, after the lease expired) must end
  // in exactly the state and counts of an uninterrupted run.
  const crashes: [string, { method: string; call: number; after?: boolean }][] = [
    ['after the lease, before the first query', { method: 'listDocumentEntries', call: 1 }],
    ['before the target reads', { method: 'getMarkedEntries', call: 2 }],
    ['in the middle of the target writes', { method: 'copyEntryIf', call: 75 }],
    ['after a target write took effect', { method: 'copyEntryIf', call: 60, after: true }],
    ['after the writes, before progress is saved', { method: 'saveProgress', call: 2 }],
    ['after progress was saved, before the deletes', { method: 'saveProgress', call: 2, after: true }],
    // The deletes of a page are one call (PartiQL batches of 25 inside): the second page's.
    ['before the deletes of a page', { method: 'deleteEntriesIf', call: 2 }],
    ["after a page's deletes took effect", { method: 'deleteEntriesIf', call: 2, after: true }],
    ['after completion, before the locks are released', { method: 'releaseLocks', call: 1 }],
  ];
  test.each(crashes)('a crash %s, then a retry: exact end state and counts', async (_name, plan) => {
    await h.seed([
      ...sourceEntries(120),
      { organizationId: ORG, userId: user(10), documentId: DST, config: { inbox: 'NONE' }, updatedAt: at(30) },
      { organizationId: ORG, userId: user(80), documentId: DST, config: { inbox: 'NONE' }, updatedAt: at(30) },
    ]);
    const id = await h.start(ORG, SRC, DST);
    const process = new Process(plan);
    await expect(
      h.deliver(id, { entries: process.wrap(h.store), repository: process.wrap(h.repository), pageSize: 50 }),
    ).rejects.toBeInstanceOf(CrashError);

    const retry = await h.deliver(id, { now: later, pageSize: 50 });
    expect(['completed', 'ignored']).toContain(retry);
    expect(await summary(id)).toEqual({ status: 'completed', moved: 118, skipped: 2 });
    expect(await h.documentEntries(ORG, SRC)).toEqual([]);
    const target = await contents(DST);
    expect(Object.keys(target)).toHaveLength(120);
    expect(target[user(10)]?.updatedAt).toBe(at(30));
    expect(target[user(11)]).toEqual({ config: configOf(11), updatedAt: at(10) });

    // The retry frees the documents whatever step the crash interrupted: no lock is left behind.
    expect(await h.lockExists(ORG, SRC)).toBe(false);
    expect(await h.lockExists(ORG, DST)).toBe(false);
    const next = await h.start(ORG, DST, SRC);
    expect(next).not.toBe(id);
  });
});

describe('a completion answered after the client gave up', () => {
  test("the SDK's retry meets the run's own completion: the run completes and frees the documents", async () => {
    await h.seed(sourceEntries(10));
    const id = await h.start(ORG, SRC, DST);
    // The first completion takes effect but its answer is lost; the SDK sends it again.
    const lateAnswer: typeof h.repository = Object.create(h.repository);
    lateAnswer.complete = async (migrationId, owner, at) => {
      await h.repository.complete(migrationId, owner, at);
      return h.repository.complete(migrationId, owner, at);
    };
    expect(await h.deliver(id, { repository: lateAnswer })).toBe('completed');
    expect(await summary(id)).toEqual({ status: 'completed', moved: 10, skipped: 0 });
    expect(await h.lockExists(ORG, SRC)).toBe(false);
    expect(await h.lockExists(ORG, DST)).toBe(false);
  });

  test("a page saved but answered late: the SDK's retry succeeds and the page's counts are added once", async () => {
    await h.seed(sourceEntries(3));
    const id = await h.start(ORG, SRC, DST);
    await h.repository.acquireLease(id, 'run-a', Date.now() + 20_000, new Date());
    const page = {
      counts: { moved: 3, skipped: 1 },
      fields: { skippedCheckpoint: [] },
      run: 'run-a',
      page: 1,
      leaseUntil: Date.now() + 20_000,
      at: at(1),
    };
    expect(await h.repository.saveProgress(id, 'run-a', page)).toBe(true);
    expect(await h.repository.saveProgress(id, 'run-a', page)).toBe(true);
    expect(await h.repository.get(id)).toMatchObject({ moved: 3, skipped: 1 });
    // Another holder of the lease is still refused.
    expect(await h.repository.saveProgress(id, 'run-b', { ...page, run: 'run-b' })).toBe(false);
  });

  test('a completion by another run at another time is not taken for ours', async () => {
    await h.seed(sourceEntries(3));
    const id = await h.start(ORG, SRC, DST);
    await h.repository.acquireLease(id, 'run-a', Date.now() + 20_000, new Date());
    expect(await h.repository.complete(id, 'run-a', at(1))).toBe(true);
    expect(await h.repository.complete(id, 'run-b', at(2))).toBe(false);
  });
});

describe('the last attempt', () => {
  test('killed after its first page, before it can mark anything: its watchdog resumes the migration', async () => {
    await h.seed(sourceEntries(120));
    const id = await h.start(ORG, SRC, DST);
    const process = new Process({ method: 'deleteEntriesIf', call: 2 });
    const started = Date.now();
    await expect(
      h.deliver(
        id,
        { entries: process.wrap(h.store), repository: process.wrap(h.repository), pageSize: 50 },
        { receiveCount: 5, maxReceiveCount: 5, remainingTimeMs: () => 60_000 },
      ),
    ).rejects.toBeInstanceOf(CrashError);
    // The message itself goes to the dead-letter queue; the watchdog was queued first (after the
    // first page), delayed past the dead run's lease: its deadline plus a grace period, at least
    // 65 s after the run started however long that page took.
    expect(h.queue.sent).toEqual([id, id]);
    const pageSeconds = Math.floor(((h.queue.sentAt[1] ?? started) - started) / 1000);
    expect((h.queue.delays[1] ?? 0) + pageSeconds).toBeGreaterThanOrEqual(65);
    expect((await summary(id)).status).toBe('in_progress');

    expect(await h.deliver(id, { now: later, pageSize: 50 })).toBe('completed');
    expect(await summary(id)).toEqual({ status: 'completed', moved: 120, skipped: 0 });
    expect(await h.documentEntries(ORG, SRC)).toEqual([]);
  });

  test('a live lease on the last attempt re-queues the message for when the lease has expired', async () => {
    await h.seed(sourceEntries(10));
    const id = await h.start(ORG, SRC, DST);
    await h.repository.acquireLease(id, 'someone-else', Date.now() + 20_000, new Date());
    expect(await h.deliver(id, {}, { receiveCount: 5, maxReceiveCount: 5 })).toBe('deferred');
    expect(h.queue.delays.at(-1)).toBe(10);
    expect((await summary(id)).status).toBe('in_progress');
    expect(await h.deliver(id, { now: later })).toBe('completed');
  });
});
