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

// A reset of the source document during a migration is a write like any other (5.3 of the
// service's rules): what it does to the source before the consumer's final pass reaches the
// entry is what the consumer moves. A channel it removed is not moved, an entry it emptied
// (left as a tombstone, which is no entry) moves nothing, and an older entry already at the
// target stays as it was, exactly as if the reset had happened before the migration started.

useMigrationHarness();

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
