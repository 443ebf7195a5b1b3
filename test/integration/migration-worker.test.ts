import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, test } from '@jest/globals';
import { migrationKey } from '#shared/migration/keys.js';
import { runMigration } from '#shared/migration/worker.js';
import type { ChannelConfig } from '#shared/preferences/model.js';
import {
  at,
  CrashError,
  configOf,
  contents,
  DST,
  h,
  ORG,
  Process,
  SRC,
  sourceEntries,
  summary,
  useMigrationHarness,
  user,
} from './migration-fixtures.js';

const dynamo = useMigrationHarness();

describe('moving entries', () => {
  test('category layers move with their entry, each with its values and write times; an entry holding only them moves too', async () => {
    const meta = (category?: string) => ({ updatedAt: at(5), updatedBy: 'ak_1', ...(category ? { category } : {}) });
    const key = (i: number) => ({ organizationId: ORG, userId: user(i), documentId: SRC });
    await h.preferences.setChannels(key(0), { inbox: 'NONE' }, meta());
    await h.preferences.setChannels(key(0), { email: 'ALL' }, meta('comment'));
    await h.preferences.setChannels(key(0), { slack: 'MINE' }, meta('constructor'));
    await h.preferences.setChannels(key(1), { email: 'NONE' }, meta('share'));
    const id = await h.start(ORG, SRC, DST);
    expect(await h.deliver(id)).toBe('completed');
    expect(await summary(id)).toEqual({ status: 'completed', moved: 2, skipped: 0 });
    const moved = await h.preferences.getEntries([0, 1].map((i) => ({ ...key(i), documentId: DST })));
    // In user order: a batched read answers in any order.
    moved.sort((a, b) => a.userId.localeCompare(b.userId));
    expect(moved.map((e) => [e.userId, e.config, e.categories])).toEqual([
      [
        user(0),
        { inbox: 'NONE' },
        {
          comment: { config: { email: 'ALL' }, channelAt: { email: at(5) } },
          constructor: { config: { slack: 'MINE' }, channelAt: { slack: at(5) } },
        },
      ],
      [user(1), {}, { share: { config: { email: 'NONE' }, channelAt: { email: at(5) } } }],
    ]);
    expect(await h.documentEntries(ORG, SRC)).toEqual([]);
  });

  test('moves every document entry, keeps organization entries and other organizations, releases the locks', async () => {
    await h.seed([
      ...sourceEntries(3),
      { organizationId: ORG, userId: user(0), documentId: null, config: { slack: 'ALL' }, updatedAt: at(1) },
      { organizationId: 'org#2', userId: user(0), documentId: SRC, config: { inbox: 'NONE' }, updatedAt: at(1) },
      { organizationId: ORG, userId: user(0), documentId: 'doc/other', config: { inbox: 'NONE' }, updatedAt: at(1) },
    ]);
    const id = await h.start(ORG, SRC, DST);
    expect(await h.deliver(id)).toBe('completed');

    expect(await summary(id)).toEqual({ status: 'completed', moved: 3, skipped: 0 });
    expect(await h.documentEntries(ORG, SRC)).toEqual([]);
    const moved = await h.documentEntries(ORG, DST);
    expect(moved.map((e) => [e.userId, e.documentId, e.scope, e.config, e.updatedAt])).toEqual(
      [0, 1, 2].map((i) => [user(i), DST, 'document', configOf(i), at(10)]),
    );
    expect(await h.preferences.getEntries([{ organizationId: ORG, userId: user(0), documentId: null }])).toEqual([
      expect.objectContaining({ config: { slack: 'ALL' } }),
    ]);
    expect(await h.documentEntries('org#2', SRC)).toHaveLength(1);
    expect(await h.documentEntries(ORG, 'doc/other')).toHaveLength(1);
    expect(await h.lockExists(ORG, SRC)).toBe(false);
    expect(await h.lockExists(ORG, DST)).toBe(false);
    const record = await h.repository.get(id);
    expect(record?.completedAt).toBeDefined();
    expect(record?.startedAt).toBeDefined();
  });

  test('conflicts: a strictly newer target wins (skipped), an older or equally old one is overwritten', async () => {
    await h.seed([
      ...sourceEntries(4, at(10)),
      {
        organizationId: ORG,
        userId: user(0),
        documentId: DST,
        config: { inbox: 'NONE' },
        updatedAt: at(20),
        version: 7,
      },
      {
        organizationId: ORG,
        userId: user(1),
        documentId: DST,
        config: { slack: 'NONE' },
        updatedAt: at(5),
        version: 3,
      },
      { organizationId: ORG, userId: user(2), documentId: DST, config: { slack: 'MINE' }, updatedAt: at(10) },
    ]);
    const id = await h.start(ORG, SRC, DST);
    await h.deliver(id);

    expect(await summary(id)).toEqual({ status: 'completed', moved: 3, skipped: 1 });
    expect(await h.documentEntries(ORG, SRC)).toEqual([]);
    const target = await contents(DST);
    expect(target[user(0)]).toEqual({ config: { inbox: 'NONE' }, updatedAt: at(20) });
    expect(target[user(1)]).toEqual({ config: configOf(1), updatedAt: at(10) });
    expect(target[user(2)]).toEqual({ config: configOf(2), updatedAt: at(10) });
    expect(target[user(3)]).toEqual({ config: configOf(3), updatedAt: at(10) });
    // The overwritten target's version goes on counting, so conditional writes stay sound.
    const [overwritten] = await h.preferences.getEntries([{ organizationId: ORG, userId: user(1), documentId: DST }]);
    expect(overwritten?.version).toBe(4);
  });

  test('an empty source completes at once with zero counts', async () => {
    const id = await h.start(ORG, SRC, DST);
    expect(await h.deliver(id)).toBe('completed');
    expect(await summary(id)).toEqual({ status: 'completed', moved: 0, skipped: 0 });
  });
});

describe('at-least-once delivery', () => {
  test('a redelivered message after completion changes nothing', async () => {
    await h.seed(sourceEntries(5));
    const id = await h.start(ORG, SRC, DST);
    await h.deliver(id);
    const before = await contents(DST);
    expect(await h.deliver(id)).toBe('ignored');
    expect(await summary(id)).toEqual({ status: 'completed', moved: 5, skipped: 0 });
    expect(await contents(DST)).toEqual(before);
  });

  test('the same message twice at once: one runs, the other is told to retry, counts stay exact', async () => {
    await h.seed(sourceEntries(250));
    const id = await h.start(ORG, SRC, DST);
    const results = await Promise.allSettled([h.deliver(id), h.deliver(id)]);
    expect(results.filter((r) => r.status === 'fulfilled').map((r) => r.value)).toContain('completed');
    for (const r of results) if (r.status === 'rejected') expect((r.reason as Error).name).toBe('LeaseHeldError');
    // The retried one finds the migration finished.
    expect(await h.deliver(id)).toBe('ignored');
    expect(await summary(id)).toEqual({ status: 'completed', moved: 250, skipped: 0 });
    expect(Object.keys(await contents(DST))).toHaveLength(250);
  });

  test('a message for an unknown migration is dropped', async () => {
    expect(await h.deliver('01NOSUCHMIGRATION')).toBe('ignored');
  });

  test('an error on the last attempt marks the migration failed and frees its documents', async () => {
    await h.seed(sourceEntries(150));
    const id = await h.start(ORG, SRC, DST);
    // A failure that is not a crash: the same process may still write the failed status.
    const failing = {
      ...h.deps(),
      entries: new Proxy(h.store, {
        get: (target, property, receiver) =>
          property === 'deleteEntriesIf'
            ? async () => {
                throw Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' });
              }
            : Reflect.get(target, property, receiver),
      }),
    };
    await expect(runMigration(failing, id, { receiveCount: 5, maxReceiveCount: 5 })).rejects.toThrow('throttled');
    const record = await h.repository.get(id);
    expect(record?.status).toBe('failed');
    expect(record?.error).toMatch(/after 5 attempts \(ProvisionedThroughputExceededException\)/);
    expect(await h.lockExists(ORG, SRC)).toBe(false);
    expect(await h.lockExists(ORG, DST)).toBe(false);
    // Nothing was lost: what was not deleted is still at the source, and a new migration finishes it.
    const again = await h.start(ORG, SRC, DST);
    await h.deliver(again);
    expect(Object.keys(await contents(DST))).toHaveLength(150);
    expect(await h.documentEntries(ORG, SRC)).toEqual([]);
  });

  test('a failed migration keeps no user id: its skipped checkpoint goes with the failure', async () => {
    // Users 0-119 at the source; 0-59 newer at the target, so the first page skips 60 of them.
    await h.seed([...sourceEntries(120), ...sourceEntries(60, at(20)).map((entry) => ({ ...entry, documentId: DST }))]);
    const id = await h.start(ORG, SRC, DST);
    let saved: string[] | undefined;
    const failing = {
      ...h.deps(),
      entries: new Proxy(h.store, {
        get: (target, property, receiver) =>
          property === 'deleteEntriesIf'
            ? async () => {
                // The page's progress is saved by now, its checkpoint with it.
                saved ??= (await h.repository.get(id))?.skippedCheckpoint;
                throw Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' });
              }
            : Reflect.get(target, property, receiver),
      }),
    };
    await expect(runMigration(failing, id, { receiveCount: 5, maxReceiveCount: 5 })).rejects.toThrow('throttled');
    expect(saved).toHaveLength(60);
    const { Item } = await dynamo.doc.send(
      new GetCommand({ TableName: dynamo.tables.migrations, Key: migrationKey(id), ConsistentRead: true }),
    );
    expect(Item).toMatchObject({ status: 'failed', skipped: 60 });
    expect(Item).not.toHaveProperty('skippedCheckpoint');
    const stored = JSON.stringify(Item);
    expect(sourceEntries(120).filter((entry) => stored.includes(entry.userId))).toEqual([]);
  });

  test('an error before the last attempt leaves the migration in progress for the retry', async () => {
    await h.seed(sourceEntries(20));
    const id = await h.start(ORG, SRC, DST);
    const process = new Process({ method: 'copyEntryIf', call: 3 });
    await expect(
      runMigration({ ...h.deps(), entries: process.wrap(h.store) }, id, { receiveCount: 2, maxReceiveCount: 5 }),
    ).rejects.toBeInstanceOf(CrashError);
    expect((await summary(id)).status).toBe('in_progress');
    // The failed run released its lease: the retry need not wait for it to expire.
    expect(await h.deliver(id)).toBe('completed');
    expect(await summary(id)).toEqual({ status: 'completed', moved: 20, skipped: 0 });
  });
});

describe('config writes during a migration', () => {
  test('writes racing the consumer: the latest value of every user survives, counts match the target', async () => {
    await h.seed(sourceEntries(200));
    const id = await h.start(ORG, SRC, DST);
    const latest = new Map<string, ChannelConfig>(sourceEntries(200).map((e) => [e.userId, e.config]));
    const writer = (async () => {
      for (let k = 0; k < 120; k++) {
        // Existing users (moved or not yet) and new ones, each write a different value.
        const userId = k % 3 === 0 ? `late-${k}` : user((k * 37) % 200);
        const config: ChannelConfig = { inbox: 'MINE', email: 'MINE', slack: (['ALL', 'NONE'] as const)[k % 2] };
        await h.preferences.setChannels({ organizationId: ORG, userId, documentId: SRC }, config, {
          updatedAt: new Date().toISOString(),
          updatedBy: 'ak_writer',
        });
        latest.set(userId, config);
      }
    })();
    const [outcome] = await Promise.all([h.deliver(id, { pageSize: 20, concurrency: 4 }), writer]);
    expect(outcome).toBe('completed');

    // A write that landed after completion stays at the source, as the contract says; every
    // other write was moved. Either way the latest value of each user is where it should be.
    const source = await contents(SRC);
    const target = await contents(DST);
    for (const [userId, config] of latest) {
      const found = source[userId] ?? target[userId];
      expect({ userId, config: found?.config }).toEqual({ userId, config });
    }
    // Every target entry was written by this migration, once per distinct user.
    const moved = (
      await h.store.getMarkedEntries(
        Object.keys(target).map((userId) => ({ organizationId: ORG, userId, documentId: DST })),
      )
    ).filter((e) => e.migration?.migrationId === id);
    expect(moved).toHaveLength(Object.keys(target).length);
    expect(await summary(id)).toEqual({ status: 'completed', moved: moved.length, skipped: 0 });
  });

  test('writes to the source before the final pass are all moved, and a user moved twice counts once', async () => {
    await h.seed(sourceEntries(300));
    const id = await h.start(ORG, SRC, DST);
    let queries = 0;
    let deletes = 0;
    const meta = (minutes: number) => ({ updatedAt: at(minutes), updatedBy: 'ak_writer' });
    const expected = new Map<string, ChannelConfig>(sourceEntries(300).map((e) => [e.userId, e.config]));
    const write = async (userId: string, config: ChannelConfig, minutes: number) => {
      await h.preferences.setChannels({ organizationId: ORG, userId, documentId: SRC }, config, meta(minutes));
      expected.set(userId, { ...expected.get(userId), ...config });
    };
    const racing = new Proxy(h.store, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver);
        if (property === 'listDocumentEntries') {
          return async (...args: Parameters<typeof target.listDocumentEntries>) => {
            queries += 1;
            if (queries <= 3) {
              // A new user, and an already moved user written again, before this pass.
              await write(`new-${queries}`, { slack: 'ALL' }, 40 + queries);
              if (queries > 1) await write(user(queries), { slack: 'MINE' }, 40 + queries);
            }
            return value.apply(target, args);
          };
        }
        if (property === 'deleteEntriesIf') {
          return async (...args: Parameters<typeof target.deleteEntriesIf>) => {
            // The 50th source to delete is rewritten between its copy and its delete: that
            // delete must not happen (the batch's others do).
            const fiftieth = args[0][49 - deletes];
            deletes += args[0].length;
            if (fiftieth) await write(fiftieth.userId, { email: 'NONE' }, 50);
            return value.apply(target, args);
          };
        }
        return value;
      },
    });
    expect(await h.deliver(id, { entries: racing, pageSize: 100 })).toBe('completed');

    expect(await h.documentEntries(ORG, SRC)).toEqual([]);
    const target = await contents(DST);
    expect(Object.keys(target).sort()).toEqual([...expected.keys()].sort());
    for (const [userId, config] of expected) expect(target[userId]?.config).toEqual(config);
    // 300 original users and 3 new ones; users moved twice count once.
    expect(await summary(id)).toEqual({ status: 'completed', moved: 303, skipped: 0 });
  });
});
