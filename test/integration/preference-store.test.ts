import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { BUILT_IN_DEFAULTS } from '#shared/preferences/model.js';
import { getConfig, setConfig } from '#shared/preferences/service.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';

let dynamo: TestDynamo;
let store: DynamoPreferenceStore;

beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(async () => {
  await dynamo.close();
});
beforeEach(async () => {
  const tables = await dynamo.createTables();
  store = new DynamoPreferenceStore(dynamo.doc, tables.config);
});

const org = 'org#1/a b';

describe('DynamoPreferenceStore against dynalite', () => {
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
    const a = { organizationId: 'a#b', userId: 'u', documentId: 'c' };
    const b = { organizationId: 'a', userId: 'u', documentId: 'b#c' };
    const c = { organizationId: 'a%23b', userId: 'u', documentId: 'c' };
    await store.setChannels(a, { inbox: 'ALL' }, meta);
    await store.setChannels(b, { inbox: 'MINE' }, meta);
    await store.setChannels(c, { inbox: 'NONE' }, meta);
    const entries = await store.getEntries([a, b, c]);
    expect(entries.map((e) => [e.organizationId, e.documentId, e.config.inbox]).sort()).toEqual(
      [
        ['a', 'b#c', 'MINE'],
        ['a#b', 'c', 'ALL'],
        ['a%23b', 'c', 'NONE'],
      ].sort(),
    );
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
      {
        userId: 'ü 1',
        documentId: 'd1',
        scope: 'document',
        config: { inbox: 'MINE' },
        effective: { inbox: 'MINE', email: 'NONE', slack: 'NONE' },
        source: { inbox: 'document', email: 'organization', slack: 'default' },
      },
      {
        userId: 'ü 1',
        documentId: 'd3',
        scope: 'document',
        config: {},
        effective: { inbox: 'ALL', email: 'NONE', slack: 'NONE' },
        source: { inbox: 'default', email: 'organization', slack: 'default' },
      },
    ]);
  });
});
