import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, jest, test } from '@jest/globals';
import { BUILT_IN_DEFAULTS } from '#shared/api/channels.js';
import { DynamoPolicyStore } from '#shared/policy/dynamo-store.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import type { EntryKey } from '#shared/preferences/model.js';
import { getConfig, setConfig } from '#shared/preferences/service.js';
import { TOMBSTONE_LIFETIME_SECONDS, TOMBSTONE_TTL_ATTRIBUTE } from '#shared/preferences/tombstone.js';
import { uniqueId, useTestDynamo } from '../support/dynamo.js';
import { documentView } from '../support/results.js';

const dynamo = useTestDynamo();
let store: DynamoPreferenceStore;
let tableName: string;

beforeEach(async () => {
  org = uniqueId('org#1/a b');
  store = new DynamoPreferenceStore(dynamo.doc, dynamo.tables.config);
  tableName = dynamo.tables.config;
});

/** The running test's organization: a fresh one each test. */
let org = '';

describe('DynamoPreferenceStore against DynamoDB Local', () => {
  test('a partial write keeps the channels it does not name', async () => {
    const key = { organizationId: org, userId: 'u1', documentId: 'doc/1' };
    await store.setChannels(
      key,
      { inbox: 'NONE', email: 'ALL' },
      { updatedAt: '2026-01-01T00:00:00.000Z', updatedBy: 'ak_1' },
    );
    await store.setChannels(key, { email: 'MINE' }, { updatedAt: '2026-01-02T00:00:00.000Z', updatedBy: 'ak_2' });

    const [entry] = await store.getEntries([key]);
    expect(entry).toEqual({
      ...key,
      scope: 'document',
      config: { inbox: 'NONE', email: 'MINE' },
      updatedAt: '2026-01-02T00:00:00.000Z',
      updatedBy: 'ak_2',
      version: 2,
      channelAt: { inbox: '2026-01-01T00:00:00.000Z', email: '2026-01-02T00:00:00.000Z' },
    });
  });

  test('concurrent writes of different channels of one entry both take effect', async () => {
    const key = { organizationId: org, userId: 'u1', documentId: null };
    const meta = { updatedAt: new Date().toISOString(), updatedBy: 'ak' };
    await Promise.all([
      store.setChannels(key, { inbox: 'NONE' }, meta),
      store.setChannels(key, { email: 'ALL' }, meta),
      store.setChannels(key, { slack: 'MINE' }, meta),
    ]);
    const [entry] = await store.getEntries([key]);
    expect(entry?.config).toEqual({ inbox: 'NONE', email: 'ALL', slack: 'MINE' });
    expect(entry?.version).toBe(3);
  });

  test('identifiers that differ only by separators never share an entry', async () => {
    const meta = { updatedAt: new Date().toISOString(), updatedBy: 'ak' };
    const a = { organizationId: `${org}a#b`, userId: 'u', documentId: 'c' };
    const b = { organizationId: `${org}a`, userId: 'u', documentId: 'b#c' };
    const c = { organizationId: `${org}a%23b`, userId: 'u', documentId: 'c' };
    await store.setChannels(a, { inbox: 'ALL' }, meta);
    await store.setChannels(b, { inbox: 'MINE' }, meta);
    await store.setChannels(c, { inbox: 'NONE' }, meta);
    const entries = await store.getEntries([a, b, c]);
    expect(entries.map((e) => [e.organizationId, e.documentId, e.config.inbox]).sort()).toEqual(
      [
        [`${org}a`, 'b#c', 'MINE'],
        [`${org}a#b`, 'c', 'ALL'],
        [`${org}a%23b`, 'c', 'NONE'],
      ].sort(),
    );
  });

  test('a late write, stamped older than the stored channel, does not replace it; its fresh channels are written', async () => {
    const key = { organizationId: org, userId: 'u1', documentId: 'd' };
    await store.setChannels(key, { inbox: 'NONE' }, { updatedAt: '2026-01-02T00:00:00.000Z', updatedBy: 'ak_new' });
    // A request that started earlier, frozen past its deadline, lands now.
    await store.setChannels(
      key,
      { inbox: 'ALL', email: 'ALL' },
      { updatedAt: '2026-01-01T00:00:00.000Z', updatedBy: 'ak_old' },
    );
    const [entry] = await store.getEntries([key]);
    expect(entry?.config).toEqual({ inbox: 'NONE', email: 'ALL' });
    // The entry's time only moves forward: it stays the time of its newest change.
    expect(entry?.updatedAt).toBe('2026-01-02T00:00:00.000Z');
    expect(entry?.channelAt).toEqual({ inbox: '2026-01-02T00:00:00.000Z', email: '2026-01-01T00:00:00.000Z' });

    // Wholly stale: nothing changes, not even the version.
    await store.setChannels(key, { inbox: 'MINE' }, { updatedAt: '2026-01-01T12:00:00.000Z', updatedBy: 'ak_old' });
    const [after] = await store.getEntries([key]);
    expect(after).toEqual(entry);
  });

  test('concurrent writes of different channels stamped at different times all take effect', async () => {
    const key = { organizationId: org, userId: 'u2', documentId: null };
    await Promise.all([
      store.setChannels(key, { inbox: 'NONE' }, { updatedAt: '2026-01-01T00:00:01.000Z', updatedBy: 'a' }),
      store.setChannels(key, { email: 'ALL' }, { updatedAt: '2026-01-01T00:00:03.000Z', updatedBy: 'b' }),
      store.setChannels(key, { slack: 'MINE' }, { updatedAt: '2026-01-01T00:00:02.000Z', updatedBy: 'c' }),
    ]);
    const [entry] = await store.getEntries([key]);
    expect(entry?.config).toEqual({ inbox: 'NONE', email: 'ALL', slack: 'MINE' });
    expect(entry?.updatedAt).toBe('2026-01-01T00:00:03.000Z');
  });

  test('reset removes the named channels, keeps the others, and deletes an entry left with none', async () => {
    const key = { organizationId: org, userId: 'u3', documentId: 'd' };
    const meta = (day: number) => ({ updatedAt: `2026-01-0${day}T00:00:00.000Z`, updatedBy: 'ak' });
    await store.setChannels(key, { inbox: 'NONE', email: 'ALL', slack: 'MINE' }, meta(1));
    await store.resetChannels(key, ['inbox', 'slack'], meta(2));
    const [entry] = await store.getEntries([key]);
    expect(entry?.config).toEqual({ email: 'ALL' });
    expect(entry?.updatedAt).toBe(meta(2).updatedAt);

    await store.resetChannels(key, ['email'], meta(3));
    expect(await store.getEntries([key])).toEqual([]);
    // Resetting what is not stored succeeds and creates nothing.
    await store.resetChannels(key, ['inbox', 'email', 'slack'], meta(4));
    expect(await store.getEntries([key])).toEqual([]);
  });

  test('a late reset does not remove a value set by a newer request', async () => {
    const key = { organizationId: org, userId: 'u4', documentId: null };
    await store.setChannels(key, { inbox: 'NONE' }, { updatedAt: '2026-01-01T00:00:00.000Z', updatedBy: 'ak' });
    await store.setChannels(key, { email: 'ALL' }, { updatedAt: '2026-01-03T00:00:00.000Z', updatedBy: 'ak' });
    await store.resetChannels(key, ['inbox', 'email'], { updatedAt: '2026-01-02T00:00:00.000Z', updatedBy: 'ak' });
    const [entry] = await store.getEntries([key]);
    expect(entry?.config).toEqual({ email: 'ALL' });
    // A set older than the reset cannot bring the reset channel back while the entry exists.
    await store.setChannels(key, { inbox: 'MINE' }, { updatedAt: '2026-01-01T12:00:00.000Z', updatedBy: 'ak' });
    expect((await store.getEntries([key]))[0]?.config).toEqual({ email: 'ALL' });
  });

  test('a document entry emptied by reset stays as a tombstone: no entry to readers, expiring, revived by a set', async () => {
    const key = { organizationId: org, userId: 'u5', documentId: 'd' };
    const meta = (day: number) => ({ updatedAt: `2026-01-0${day}T00:00:00.000Z`, updatedBy: 'ak' });
    const stored = async () =>
      (await dynamo.doc.send(new GetCommand({ TableName: tableName, Key: entryTableKey(key), ConsistentRead: true })))
        .Item;
    await store.setChannels(key, { inbox: 'NONE', slack: 'ALL' }, meta(2));
    await store.resetChannels(key, ['inbox', 'slack'], meta(3));
    const tombstone = await stored();
    expect(tombstone).toMatchObject({
      inboxAt: meta(3).updatedAt,
      slackAt: meta(3).updatedAt,
      updatedAt: meta(3).updatedAt,
    });
    expect(tombstone?.[TOMBSTONE_TTL_ATTRIBUTE]).toBe(
      Date.parse(meta(3).updatedAt) / 1000 + TOMBSTONE_LIFETIME_SECONDS,
    );
    expect(tombstone).not.toHaveProperty('inbox');
    expect(tombstone).not.toHaveProperty('slack');
    // Readers see no entry.
    expect(await store.getEntries([key])).toEqual([]);
    expect((await store.getUserLayers(org, 'd', ['u5'])).get('u5')).toEqual({});
    // A set older than the reset still cannot bring a reset channel back.
    await store.setChannels(key, { inbox: 'MINE' }, meta(1));
    expect(await store.getEntries([key])).toEqual([]);
    // A newer set revives it, and it no longer expires.
    await store.setChannels(key, { email: 'ALL' }, meta(4));
    expect((await store.getEntries([key]))[0]?.config).toEqual({ email: 'ALL' });
    expect(await stored()).not.toHaveProperty(TOMBSTONE_TTL_ATTRIBUTE);
  });

  test('an organization-level entry emptied by reset is deleted (never migrated: no tombstone)', async () => {
    const key = { organizationId: org, userId: 'u6', documentId: null };
    await store.setChannels(key, { email: 'NONE' }, { updatedAt: '2026-01-01T00:00:00.000Z', updatedBy: 'ak' });
    await store.resetChannels(key, ['email'], { updatedAt: '2026-01-02T00:00:00.000Z', updatedBy: 'ak' });
    const { Item } = await dynamo.doc.send(
      new GetCommand({ TableName: tableName, Key: entryTableKey(key), ConsistentRead: true }),
    );
    expect(Item).toBeUndefined();
  });

  test('set then get resolves document, organization and default layers', async () => {
    await setConfig({ store }, { organizationId: org, userIds: ['ü 1'], config: { email: 'NONE' } }, 'ak');
    await setConfig(
      { store },
      { organizationId: org, userIds: ['ü 1'], documentIds: ['d1', 'd2'], config: { inbox: 'MINE' } },
      'ak',
    );
    const views = await getConfig(
      { store, defaults: BUILT_IN_DEFAULTS },
      { organizationId: org, userId: 'ü 1', documentIds: ['d1', 'd3'] },
    );
    expect(views).toEqual([
      documentView('ü 1', 'd1', {
        config: { inbox: 'MINE' },
        effective: { inbox: 'MINE', email: 'NONE', slack: 'NONE' },
        source: { inbox: 'document', email: 'organization', slack: 'default' },
      }),
      documentView('ü 1', 'd3', {
        config: {},
        effective: { inbox: 'ALL', email: 'NONE', slack: 'NONE' },
        source: { inbox: 'default', email: 'organization', slack: 'default' },
      }),
    ]);
  });
});

describe('config/set: one conditional UpdateItem per entry, nothing batched', () => {
  const users = Array.from({ length: 150 }, (_, i) => `batch-${i}`);
  const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));

  /** The commands `run` sent, by name. */
  const commandsOf = async (run: () => Promise<unknown>) => {
    const send = jest.spyOn(dynamo.doc, 'send');
    try {
      await run();
      return send.mock.calls.map(([command]) => command.constructor.name);
    } finally {
      send.mockRestore();
    }
  };

  test('writes every entry of a request with its own UpdateItem, whether it is new or stored', async () => {
    const request = (config: { email: 'NONE' | 'MINE' }) => ({
      organizationId: org,
      userIds: users,
      documentIds: ['d1', 'd2'],
      config,
    });
    for (const [minute, config] of [
      [1, { email: 'NONE' }],
      [2, { email: 'MINE' }],
    ] as const) {
      const commands = await commandsOf(() => setConfig({ store, now: () => at(minute) }, request(config), 'ak_set'));
      expect(commands).toEqual(Array.from({ length: 300 }, () => 'UpdateCommand'));
    }
    const [view] = await getConfig(
      { store, defaults: BUILT_IN_DEFAULTS },
      { organizationId: org, userId: 'batch-149', documentIds: ['d2'] },
    );
    expect(view?.config).toEqual({ email: 'MINE' });
  });

  test('an entry holding a newer channel keeps it, the rest of it and every other entry is written', async () => {
    const newer = { organizationId: org, userId: 'batch-7', documentId: 'd1' };
    await store.setChannels(newer, { inbox: 'NONE' }, { updatedAt: at(9).toISOString(), updatedBy: 'ak_new' });

    await setConfig(
      { store, now: () => at(5) },
      { organizationId: org, userIds: users, documentIds: ['d1'], config: { inbox: 'ALL', slack: 'MINE' } },
      'ak_late',
    );

    const entries = await store.getEntries(users.map((userId) => ({ organizationId: org, userId, documentId: 'd1' })));
    expect(entries).toHaveLength(150);
    for (const entry of entries) {
      expect({ user: entry.userId, config: entry.config }).toEqual({
        user: entry.userId,
        config: entry.userId === 'batch-7' ? { inbox: 'NONE', slack: 'MINE' } : { inbox: 'ALL', slack: 'MINE' },
      });
    }
  });
});

describe("the entries and the organization's policy in one batched read", () => {
  const meta = { updatedAt: '2026-01-01T00:00:00.000Z', updatedBy: 'ak_1' };

  test('every entry and the policy, split apart, across more than one chunk of 100 keys', async () => {
    const policies = new DynamoPolicyStore(dynamo.doc, tableName);
    const policy = { channels: { email: { value: 'NONE' as const, locked: true as const } } };
    await policies.put(org, policy, meta);
    // 150 users: 300 layer keys and the policy, in four chunks; every other user has a document entry.
    const users = Array.from({ length: 150 }, (_, i) => `u${i}`);
    for (const userId of users.filter((_, i) => i % 2 === 0)) {
      await store.setChannels({ organizationId: org, userId, documentId: 'd' }, { inbox: 'NONE' }, meta);
    }
    await store.setChannels({ organizationId: org, userId: 'u1', documentId: null }, { slack: 'ALL' }, meta);

    const { read: layers, policy: read } = await store.getUserLayersWithPolicy(org, 'd', users);
    expect(read).toMatchObject({ organizationId: org, version: 1, policy });
    expect(layers.size).toBe(150);
    expect([...layers.values()].filter((l) => l.document).length).toBe(75);
    expect(layers.get('u1')?.organization?.config).toEqual({ slack: 'ALL' });
    expect(layers).toEqual(await store.getUserLayers(org, 'd', users));

    const keys: EntryKey[] = users.map((userId) => ({ organizationId: org, userId, documentId: 'd' }));
    const { read: entries, policy: again } = await store.getEntriesWithPolicy(keys, org);
    expect(again).toEqual(read);
    expect(entries).toEqual(await store.getEntries(keys));
    expect(entries).toHaveLength(75);
  });

  test('an organization without a policy reads as none, version 0', async () => {
    const read = await store.getEntriesWithPolicy(
      [{ organizationId: `${org}-without`, userId: 'u', documentId: null }],
      `${org}-without`,
    );
    expect(read).toEqual({ read: [], policy: { organizationId: `${org}-without`, policy: {}, version: 0 } });
  });
});
