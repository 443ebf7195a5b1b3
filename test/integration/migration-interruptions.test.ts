import { describe, expect, test } from '@jest/globals';
import { BUILT_IN_DEFAULTS } from '#shared/api/channels.js';
import { resetConfig } from '#shared/preferences/reset.js';
import { getConfig } from '#shared/preferences/service.js';
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

// A migration interrupted: its process crashing at any step, the SDK's answers lost, the queue's
// last attempt, and a reset of the source document racing it.

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

// A reset of the source document during a migration is a write like any other (5.3 of the
// service's rules): what it does to the source before the consumer's final pass reaches the
// entry is what the consumer moves. A channel it removed is not moved, an entry it emptied
// (left as a tombstone, which is no entry) moves nothing, and an older entry already at the
// target stays as it was, exactly as if the reset had happened before the migration started.

const reset = (userIds: string[], channels?: ('inbox' | 'email' | 'slack')[]) =>
  resetConfig(
    { store: h.preferences, now: () => new Date(at(30)) },
    { organizationId: ORG, userIds, documentIds: [SRC], ...(channels ? { channels } : {}) },
    'ak_reset',
  );

describe('config reset of the source document during a migration', () => {
  test('resets that land before the consumer reaches the entries are what gets moved', async () => {
    await h.seed([
      ...sourceEntries(60),
      // An older entry already at the target for a user whose source entry gets emptied.
      { organizationId: ORG, userId: user(45), documentId: DST, config: { slack: 'ALL' }, updatedAt: at(5) },
    ]);
    const id = await h.start(ORG, SRC, DST);
    let lists = 0;
    const racing = new Proxy(h.store, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver);
        if (property !== 'listDocumentEntries') return value;
        return async (...args: Parameters<typeof target.listDocumentEntries>) => {
          // Between the first and the second page: users 40 to 59 are not moved yet.
          if (++lists === 2) {
            await reset([user(40), user(41)], ['inbox']);
            await reset([user(45)]);
          }
          return value.apply(target, args);
        };
      },
    });
    expect(await h.deliver(id, { entries: racing, pageSize: 20 })).toBe('completed');

    expect(await h.documentEntries(ORG, SRC)).toEqual([]);
    const target = await contents(DST);
    expect(target[user(40)]?.config).toEqual({ email: configOf(40).email });
    expect(target[user(41)]?.config).toEqual({ email: configOf(41).email });
    expect(target[user(40)]?.updatedAt).toBe(at(30));
    // Emptied by the reset: nothing moved, the target's own older entry is untouched.
    expect(target[user(45)]).toEqual({ config: { slack: 'ALL' }, updatedAt: at(5) });
    expect(target[user(46)]?.config).toEqual(configOf(46));
    expect(await summary(id)).toEqual({ status: 'completed', moved: 59, skipped: 0 });
  });

  test('a reset of the source after the migration completed changes nothing at the target', async () => {
    await h.seed(sourceEntries(3));
    const id = await h.start(ORG, SRC, DST);
    await h.deliver(id);
    const before = await contents(DST);
    expect((await reset([user(0)]))[user(0)]?.success).toBe(true);
    expect(await contents(DST)).toEqual(before);
    expect(await h.documentEntries(ORG, SRC)).toEqual([]);
  });

  // A reset that lands after the consumer copied an entry but before it deleted the source:
  // the source changed, so it stays and the next pass moves it again, channel by channel over
  // the consumer's own copy (a channel the reset removed goes at the target too). An emptied
  // source entry is kept as a channel-less tombstone (reads see no entry) for that pass.

  /** The store, with `before` run once when the consumer first deletes sources; no delete goes before it ends. */
  const beforeFirstDelete = (before: () => Promise<unknown>) => {
    let racing: Promise<unknown> | undefined;
    return new Proxy(h.store, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver);
        if (property !== 'deleteEntriesIf') return value;
        return async (...args: Parameters<typeof target.deleteEntriesIf>) => {
          racing ??= before();
          await racing;
          return value.apply(target, args);
        };
      },
    });
  };
  const viewAtTarget = async (userId: string) =>
    (
      await getConfig(
        { store: h.preferences, defaults: BUILT_IN_DEFAULTS },
        { organizationId: ORG, userId, documentIds: [DST] },
      )
    )[0];

  test('a partial reset between the copy and the source delete removes those channels at the target', async () => {
    await h.seed(sourceEntries(3));
    const id = await h.start(ORG, SRC, DST);
    const racing = beforeFirstDelete(() => reset([user(0), user(1)], ['inbox']));
    expect(await h.deliver(id, { entries: racing })).toBe('completed');

    expect(await h.documentEntries(ORG, SRC)).toEqual([]);
    const target = await contents(DST);
    expect(target[user(0)]).toEqual({ config: { email: configOf(0).email }, updatedAt: at(30) });
    expect(target[user(1)]).toEqual({ config: { email: configOf(1).email }, updatedAt: at(30) });
    expect(target[user(2)]).toEqual({ config: configOf(2), updatedAt: at(10) });
    expect((await viewAtTarget(user(0)))?.source).toEqual({ inbox: 'default', email: 'document', slack: 'default' });
    expect(await summary(id)).toEqual({ status: 'completed', moved: 3, skipped: 0 });
  });

  test('a reset that empties the source after its copy removes the entry at the target', async () => {
    await h.seed(sourceEntries(3));
    const id = await h.start(ORG, SRC, DST);
    const racing = beforeFirstDelete(() => reset([user(1)]));
    expect(await h.deliver(id, { entries: racing })).toBe('completed');

    expect(await h.documentEntries(ORG, SRC)).toEqual([]);
    // The target answers as if the user had no entry there: config/get and resolve fall through.
    const view = await viewAtTarget(user(1));
    expect(view?.config).toEqual({});
    expect(view?.source).toEqual({ inbox: 'default', email: 'default', slack: 'default' });
    expect(await h.preferences.getEntries([{ organizationId: ORG, userId: user(1), documentId: DST }])).toEqual([]);
    const target = await contents(DST);
    expect(target[user(0)]).toEqual({ config: configOf(0), updatedAt: at(10) });
    expect(target[user(2)]).toEqual({ config: configOf(2), updatedAt: at(10) });
    // Moved (and counted) when it was copied; the reset came after.
    expect(await summary(id)).toEqual({ status: 'completed', moved: 3, skipped: 0 });
  });

  test('a crash after the emptied entry reached the target, before its source was deleted: the retry keeps it', async () => {
    await h.seed(sourceEntries(3));
    const id = await h.start(ORG, SRC, DST);
    // Writes 1 to 3 copy the page; write 4 carries the reset to the target, then the process dies.
    const process = new Process({ method: 'copyEntryIf', call: 4, after: true });
    const racing = process.wrap(beforeFirstDelete(() => reset([user(1)])));
    await expect(h.deliver(id, { entries: racing })).rejects.toBeInstanceOf(CrashError);
    expect((await h.documentEntries(ORG, SRC)).map((entry) => entry.userId)).toEqual([user(1)]);

    expect(await h.deliver(id, { now: later })).toBe('completed');
    expect(await h.documentEntries(ORG, SRC)).toEqual([]);
    expect((await viewAtTarget(user(1)))?.config).toEqual({});
    expect(await summary(id)).toEqual({ status: 'completed', moved: 3, skipped: 0 });
  });
});
