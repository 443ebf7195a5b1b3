import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, jest, test } from '@jest/globals';
import { BUILT_IN_DEFAULTS } from '#shared/api/channels.js';
import { ApiError } from '#shared/api/errors.js';
import { logger } from '#shared/platform/logger.js';
import { DynamoScheduleStore } from '#shared/preferences/dynamo-schedule-store.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import { resetConfig } from '#shared/preferences/reset.js';
import { RESET_CONFIG_MESSAGE, resetConfigResult } from '#shared/preferences/routes/reset-config.js';
import { getConfig, setConfig } from '#shared/preferences/service.js';
import type { PreferenceStore } from '#shared/preferences/store.js';
import { uniqueId, useTestDynamo } from '../support/dynamo.js';
import { documentResult } from '../support/results.js';

const dynamo = useTestDynamo();
let store: DynamoPreferenceStore;
let tableName: string;

beforeEach(async () => {
  org = uniqueId('org#reset');
  store = new DynamoPreferenceStore(dynamo.doc, dynamo.tables.config);
  tableName = dynamo.tables.config;
});

/** An own property (`x.__proto__` would read the prototype). */
const own = (object: object, key: string) => Object.getOwnPropertyDescriptor(object, key)?.value;

/** The running test's organization: a fresh one each test. */
let org = '';
const get = (userId: string, documentIds?: string[]) =>
  getConfig(
    { store, defaults: BUILT_IN_DEFAULTS },
    { organizationId: org, userId, ...(documentIds ? { documentIds } : {}) },
  );
const throttled = () => Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' });

describe('config reset', () => {
  test('named channels of document entries fall back to the organization layer, then the default', async () => {
    await setConfig({ store }, { organizationId: org, userIds: ['u1'], config: { email: 'NONE' } }, 'ak');
    await setConfig(
      { store },
      {
        organizationId: org,
        userIds: ['u1', 'u2'],
        documentIds: ['d1', 'd2'],
        config: { inbox: 'NONE', email: 'ALL' },
      },
      'ak',
    );
    const result = await resetConfig(
      { store },
      { organizationId: org, userIds: ['u1', 'u2', 'u1'], documentIds: ['d1', 'd2'], channels: ['email'] },
      'ak_reset',
    );
    expect(resetConfigResult().parse(result)).toEqual(result);
    expect(result).toEqual({
      u1: documentResult('u1', ['d1', 'd2'], 'Config reset.'),
      u2: documentResult('u2', ['d1', 'd2'], 'Config reset.'),
    });
    const [d1] = await get('u1', ['d1']);
    expect(d1).toMatchObject({
      config: { inbox: 'NONE' },
      effective: { inbox: 'NONE', email: 'NONE' },
      source: { inbox: 'document', email: 'organization' },
    });
    const [u2] = await get('u2', ['d2']);
    expect(u2).toMatchObject({ config: { inbox: 'NONE' }, effective: { email: 'MINE' }, source: { email: 'default' } });
    expect(RESET_CONFIG_MESSAGE).toBe('User config reset successfully.');
  });

  test('without channels every channel is reset; the emptied entry is deleted; a repeat succeeds', async () => {
    await setConfig({ store }, { organizationId: org, userIds: ['u1'], config: { inbox: 'NONE', slack: 'ALL' } }, 'ak');
    const request = { organizationId: org, userIds: ['u1'] };
    expect(await resetConfig({ store }, request, 'ak')).toEqual({
      u1: { success: true, userId: 'u1', documentId: null, scope: 'organization', message: 'Config reset.' },
    });
    expect(await store.getEntries([{ organizationId: org, userId: 'u1', documentId: null }])).toEqual([]);
    const [view] = await get('u1');
    expect(view?.source).toEqual({ inbox: 'default', email: 'default', slack: 'default' });
    // Safe to retry: nothing stored, still a success, and nothing created.
    expect((await resetConfig({ store }, request, 'ak')).u1?.success).toBe(true);
    expect(await store.getEntries([{ organizationId: org, userId: 'u1', documentId: null }])).toEqual([]);
  });

  test('a reset that still fails for some users answers 503 with the per-user map, __proto__ included', async () => {
    const errorSpy = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    const failing: PreferenceStore = {
      getEntries: store.getEntries.bind(store),
      getUserLayers: store.getUserLayers.bind(store),
      getEntriesWithPolicy: store.getEntriesWithPolicy.bind(store),
      getUserLayersWithPolicy: store.getUserLayersWithPolicy.bind(store),
      setChannels: store.setChannels.bind(store),
      resetChannels: async (key, ...rest) => {
        if (key.userId === '__proto__') throw throttled();
        return store.resetChannels(key, ...rest);
      },
    };
    try {
      const error = await resetConfig(
        { store: failing },
        { organizationId: org, userIds: ['ok', '__proto__'] },
        'ak',
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe('UNAVAILABLE');
      expect((error as ApiError).message).toBe(
        'Config could not be reset for 1 of 2 users; the request is safe to retry.',
      );
      expect(JSON.parse(JSON.stringify((error as ApiError).details))).toEqual(
        JSON.parse(
          JSON.stringify(
            Object.fromEntries([
              [
                'ok',
                { success: true, userId: 'ok', documentId: null, scope: 'organization', message: 'Config reset.' },
              ],
              [
                '__proto__',
                {
                  success: false,
                  userId: '__proto__',
                  documentId: null,
                  scope: 'organization',
                  message: 'Config could not be reset; retry the request.',
                },
              ],
            ]),
          ),
        ),
      );
      expect(Object.keys(JSON.parse(JSON.stringify((error as ApiError).details)))).toEqual(['ok', '__proto__']);
    } finally {
      errorSpy.mockRestore();
    }
  });
});

describe('user ids such as __proto__ in every response map', () => {
  test('config set and config reset answer an entry for __proto__ and constructor', async () => {
    const userIds = ['__proto__', 'constructor', 'u'];
    const set = JSON.parse(
      JSON.stringify(await setConfig({ store }, { organizationId: org, userIds, config: { inbox: 'NONE' } }, 'ak')),
    );
    expect(Object.keys(set)).toEqual(userIds);
    expect(own(set, '__proto__')).toEqual({
      success: true,
      userId: '__proto__',
      documentId: null,
      scope: 'organization',
      message: 'Config set.',
    });
    const reset = JSON.parse(JSON.stringify(await resetConfig({ store }, { organizationId: org, userIds }, 'ak')));
    expect(Object.keys(reset)).toEqual(userIds);
    expect(own(reset, '__proto__').userId).toBe('__proto__');
  });

  test('the 503 details of config set hold a failed __proto__ user', async () => {
    const errorSpy = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    const failing: PreferenceStore = {
      getEntries: store.getEntries.bind(store),
      getUserLayers: store.getUserLayers.bind(store),
      getEntriesWithPolicy: store.getEntriesWithPolicy.bind(store),
      getUserLayersWithPolicy: store.getUserLayersWithPolicy.bind(store),
      resetChannels: store.resetChannels.bind(store),
      setChannels: async () => {
        throw throttled();
      },
    };
    try {
      const error = (await setConfig(
        { store: failing },
        { organizationId: org, userIds: ['__proto__'], config: { inbox: 'NONE' } },
        'ak',
      ).catch((e: unknown) => e)) as ApiError;
      expect(error.status).toBe('UNAVAILABLE');
      const details = JSON.parse(JSON.stringify(error.details));
      expect(Object.keys(details)).toEqual(['__proto__']);
      expect(own(details, '__proto__').success).toBe(false);
    } finally {
      errorSpy.mockRestore();
    }
  });
});

describe('a reset of many entries, each by its own rules', () => {
  const meta = (at: string) => ({ updatedAt: at, updatedBy: 'ak' });
  const EARLY = '2026-01-01T00:00:00.000Z';
  const RESET_AT = '2026-01-02T00:00:00.000Z';
  const LATE = '2026-01-03T00:00:00.000Z';

  /** The same entries under `organizationId`: every case a reset meets. */
  const seed = async (organizationId: string) => {
    const key = (userId: string, documentId: string | null) => ({ organizationId, userId, documentId });
    await store.setChannels(key('keeps-slack', 'd'), { inbox: 'NONE', email: 'ALL', slack: 'MINE' }, meta(EARLY));
    await store.setChannels(key('emptied', 'd'), { inbox: 'NONE' }, meta(EARLY));
    await store.setChannels(key('emptied-org', null), { email: 'ALL' }, meta(EARLY));
    await store.setChannels(key('newer', 'd'), { inbox: 'NONE', email: 'ALL' }, meta(EARLY));
    await store.setChannels(key('newer', 'd'), { email: 'NONE' }, meta(LATE));
    await store.setChannels(key('scheduled', null), { email: 'ALL' }, meta(EARLY));
    await new DynamoScheduleStore(dynamo.doc, tableName).setSchedule(
      key('scheduled', null),
      { timeZone: 'Europe/Berlin' },
      meta(EARLY),
    );
    return [
      key('keeps-slack', 'd'),
      key('emptied', 'd'),
      key('emptied-org', null),
      key('newer', 'd'),
      key('scheduled', null),
      key('never-set', 'd'),
      key('never-set-org', null),
    ];
  };

  /** Every item of the organization, keyed by user and scope, without the keys that name the organization. */
  const itemsOf = async (keys: { organizationId: string; userId: string; documentId: string | null }[]) => {
    const items: Record<string, unknown> = {};
    for (const key of keys) {
      const { Item } = await dynamo.doc.send(
        new GetCommand({ TableName: tableName, Key: entryTableKey(key), ConsistentRead: true }),
      );
      if (!Item) continue;
      const { pk: _pk, sk: _sk, organizationId: _org, ...rest } = Item;
      items[`${key.userId}/${key.documentId}`] = rest;
    }
    return items;
  };

  test("config/reset of several users leaves what each entry's rules say, and answers every user", async () => {
    const keys = await seed(org);
    const channels = ['inbox', 'email'] as const;
    const userIds = [...new Set(keys.map((key) => key.userId))];
    for (const documentIds of [['d'], undefined]) {
      const result = await resetConfig(
        { store, now: () => new Date(RESET_AT) },
        { organizationId: org, userIds, channels: [...channels], ...(documentIds ? { documentIds } : {}) },
        'ak',
      );
      expect(Object.values(result).every((user) => user.success)).toBe(true);
    }

    const after = await itemsOf(keys);
    // Slack kept, the emptied document entry a tombstone, the emptied organization entry gone,
    // the newer email kept, the schedule kept, nothing created.
    expect(Object.keys(after).sort()).toEqual(['emptied/d', 'keeps-slack/d', 'newer/d', 'scheduled/null']);
    expect(after['keeps-slack/d']).toMatchObject({ slack: 'MINE' });
    expect(after['keeps-slack/d']).not.toHaveProperty('inbox');
    expect(after['emptied/d']).toHaveProperty('tombstoneExpiresAt');
    expect(after['newer/d']).toMatchObject({ email: 'NONE' });
    expect(after['newer/d']).not.toHaveProperty('inbox');
    expect(after['scheduled/null']).toHaveProperty('schedule');
    expect(after['scheduled/null']).not.toHaveProperty('email');
    expect(await store.getEntries([{ organizationId: org, userId: 'keeps-slack', documentId: 'd' }])).toHaveLength(1);
    const [newer] = await store.getEntries([{ organizationId: org, userId: 'newer', documentId: 'd' }]);
    expect(newer?.config).toEqual({ email: 'NONE' });
  });
});
