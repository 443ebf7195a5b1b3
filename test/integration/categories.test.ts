import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, test } from '@jest/globals';
import { BUILT_IN_DEFAULTS } from '#shared/api/channels.js';
import { ApiError } from '#shared/api/errors.js';
import { DynamoPolicyStore } from '#shared/policy/dynamo-store.js';
import { PolicyReader } from '#shared/policy/reader.js';
import { setPolicy } from '#shared/policy/service.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { LAYERS_FULL_MESSAGE } from '#shared/preferences/entry-writes.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import { MAX_CATEGORY_LAYERS } from '#shared/preferences/layers.js';
import type { EntryKey } from '#shared/preferences/model.js';
import { resetConfig } from '#shared/preferences/reset.js';
import { resolveConfig } from '#shared/preferences/resolve.js';
import { getConfig, setConfig } from '#shared/preferences/service.js';
import { uniqueId, useTestDynamo } from '../support/dynamo.js';

const dynamo = useTestDynamo();
let store: DynamoPreferenceStore;
let policyStore: DynamoPolicyStore;
let policies: PolicyReader;

beforeEach(async () => {
  org = uniqueId('acme');
  store = new DynamoPreferenceStore(dynamo.doc, dynamo.tables.config);
  policyStore = new DynamoPolicyStore(dynamo.doc, dynamo.tables.config);
  policies = new PolicyReader(policyStore, 0);
});

/** The running test's organization: a fresh one each test. */
let org = '';
const deps = () => ({ store, policies, defaults: BUILT_IN_DEFAULTS });
const get = (userId: string, extra: { documentIds?: string[]; category?: string; explain?: boolean } = {}) =>
  getConfig(deps(), { organizationId: org, userId, ...extra });
const item = async (key: EntryKey) =>
  (
    await dynamo.doc.send(
      new GetCommand({ TableName: dynamo.tables.config, Key: entryTableKey(key), ConsistentRead: true }),
    )
  ).Item;
const rejection = async (promise: Promise<unknown>): Promise<ApiError> => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
};

describe('category layers of an entry', () => {
  test('a set with a category writes that layer only; get shows it beside the all-categories config', async () => {
    await setConfig(deps(), { organizationId: org, userIds: ['alice'], config: { email: 'MINE' } }, 'ak');
    await setConfig(
      deps(),
      { organizationId: org, userIds: ['alice'], category: 'comment', config: { email: 'NONE', slack: 'ALL' } },
      'ak',
    );
    const [plain] = await get('alice');
    expect(plain).toMatchObject({
      config: { email: 'MINE' },
      categories: { comment: { email: 'NONE', slack: 'ALL' } },
      effective: { email: 'MINE' },
      source: { email: 'organization' },
    });
    const [comment] = await get('alice', { category: 'comment' });
    expect(comment).toMatchObject({
      effective: { email: 'NONE', slack: 'ALL' },
      source: { email: 'organization:category', slack: 'organization:category', inbox: 'default' },
    });
    expect((await item({ organizationId: org, userId: 'alice', documentId: null }))?.categoryIds).toEqual(
      new Set(['comment']),
    );
  });

  test('resolve with a category resolves it for every user, document layer first', async () => {
    await setConfig(
      deps(),
      { organizationId: org, userIds: ['a', 'b'], category: 'mention', config: { inbox: 'NONE' } },
      'ak',
    );
    await setConfig(
      deps(),
      { organizationId: org, userIds: ['b'], documentIds: ['d1'], category: 'mention', config: { inbox: 'MINE' } },
      'ak',
    );
    const { users } = await resolveConfig(deps(), {
      organizationId: org,
      documentId: 'd1',
      userIds: ['a', 'b', 'c'],
      category: 'mention',
      activity: { involvedUserIds: ['b'] },
    });
    expect([users.a?.source.inbox, users.b?.source.inbox, users.c?.source.inbox]).toEqual([
      'organization:category',
      'document:category',
      'default',
    ]);
    expect([users.a?.deliver?.inbox, users.b?.deliver?.inbox]).toEqual([false, true]);
    // The same users without the category: no category layer counts.
    const plain = await resolveConfig(deps(), { organizationId: org, documentId: 'd1', userIds: ['a', 'b'] });
    expect([plain.users.a?.source.inbox, plain.users.b?.source.inbox]).toEqual(['default', 'default']);
  });

  test('a reset with a category empties that layer only; an entry left with no value anywhere is gone', async () => {
    const key = { organizationId: org, userId: 'bob', documentId: null };
    await setConfig(deps(), { organizationId: org, userIds: ['bob'], config: { inbox: 'MINE' } }, 'ak');
    await setConfig(
      deps(),
      { organizationId: org, userIds: ['bob'], category: 'share', config: { email: 'NONE' } },
      'ak',
    );
    await resetConfig(deps(), { organizationId: org, userIds: ['bob'], category: 'share' }, 'ak');
    expect((await get('bob'))[0]).toMatchObject({ config: { inbox: 'MINE' }, categories: {} });
    expect((await item(key))?.categoryIds).toBeUndefined();
    // A category layer keeps the entry when its all-categories layer is reset; the last reset removes it.
    await setConfig(
      deps(),
      { organizationId: org, userIds: ['bob'], category: 'share', config: { email: 'NONE' } },
      'ak',
    );
    await resetConfig(deps(), { organizationId: org, userIds: ['bob'] }, 'ak');
    expect((await get('bob'))[0]).toMatchObject({ config: {}, categories: { share: { email: 'NONE' } } });
    await resetConfig(deps(), { organizationId: org, userIds: ['bob'], category: 'share', channels: ['email'] }, 'ak');
    expect(await item(key)).toBeUndefined();
  });

  test('a document entry with only a category layer is no tombstone to readers, and becomes one when emptied', async () => {
    const key = { organizationId: org, userId: 'carol', documentId: 'd9' };
    await setConfig(
      deps(),
      { organizationId: org, userIds: ['carol'], documentIds: ['d9'], category: 'x.y_z-1', config: { slack: 'MINE' } },
      'ak',
    );
    expect(await store.getEntries([key])).toHaveLength(1);
    await resetConfig(
      deps(),
      { organizationId: org, userIds: ['carol'], documentIds: ['d9'], category: 'x.y_z-1' },
      'ak',
    );
    expect(await store.getEntries([key])).toEqual([]);
    expect((await item(key))?.tombstoneExpiresAt).toEqual(expect.any(Number));
  });

  test('category ids that are names of object properties are plain layers', async () => {
    await setConfig(
      deps(),
      { organizationId: org, userIds: ['dave'], category: 'constructor', config: { inbox: 'NONE' } },
      'ak',
    );
    await setConfig(
      deps(),
      { organizationId: org, userIds: ['dave'], category: 'tostring', config: { email: 'ALL' } },
      'ak',
    );
    const [view] = await get('dave', { category: 'constructor' });
    expect(view?.categories).toEqual({ constructor: { inbox: 'NONE' }, tostring: { email: 'ALL' } });
    expect(Object.getPrototypeOf(view?.categories)).toBe(Object.prototype);
    expect(view?.source.inbox).toBe('organization:category');
  });

  test(`the ${MAX_CATEGORY_LAYERS + 1}st category of an entry is refused for that user (400, the per-user map); others are written`, async () => {
    const categories = Array.from({ length: MAX_CATEGORY_LAYERS }, (_, i) => `c${i}`);
    for (const category of categories) {
      await store.setChannels(
        { organizationId: org, userId: 'full', documentId: null },
        { inbox: 'NONE' },
        {
          updatedAt: '2026-01-01T00:00:00.000Z',
          updatedBy: 'ak',
          category,
        },
      );
    }
    const before = await item({ organizationId: org, userId: 'full', documentId: null });
    const error = await rejection(
      setConfig(
        deps(),
        { organizationId: org, userIds: ['full', 'room'], category: 'one-more', config: { email: 'NONE' } },
        'ak',
      ),
    );
    expect([error.status, error.httpStatus]).toEqual(['INVALID_ARGUMENT', 400]);
    expect(error.message).toContain(`at most ${MAX_CATEGORY_LAYERS} category layers`);
    expect(error.details).toMatchObject({
      full: { success: false, message: LAYERS_FULL_MESSAGE },
      room: { success: true },
    });
    expect(await item({ organizationId: org, userId: 'full', documentId: null })).toEqual(before);
    // An existing layer can still be changed, and a freed place taken.
    await setConfig(deps(), { organizationId: org, userIds: ['full'], category: 'c7', config: { email: 'ALL' } }, 'ak');
    await resetConfig(deps(), { organizationId: org, userIds: ['full'], category: 'c8' }, 'ak');
    await setConfig(
      deps(),
      { organizationId: org, userIds: ['full'], category: 'one-more', config: { email: 'NONE' } },
      'ak',
    );
    expect(Object.keys((await get('full'))[0]?.categories ?? {})).toHaveLength(MAX_CATEGORY_LAYERS);
  });
});

describe('the organization policy as a layer', () => {
  test('defaults reach every user at once; a lock wins and refuses sets, resets stay allowed', async () => {
    await setConfig(deps(), { organizationId: org, userIds: ['erin'], config: { email: 'NONE' } }, 'ak');
    await setPolicy(
      { store: policyStore },
      {
        organizationId: org,
        policy: {
          channels: { slack: { value: 'MINE' } },
          categories: { security: { label: 'Security', channels: { email: { value: 'ALL', locked: true } } } },
        },
      },
      'ak_admin',
    );
    const [erin] = await get('erin', { category: 'security', explain: true });
    expect(erin).toMatchObject({
      effective: { email: 'ALL', slack: 'MINE' },
      source: { email: 'locked', slack: 'policy' },
      trace: {
        email: [
          { source: 'locked', value: 'ALL' },
          { source: 'organization', value: 'NONE' },
          { source: 'default', value: BUILT_IN_DEFAULTS.email },
        ],
      },
    });
    const [frank] = await get('frank');
    expect(frank?.source.slack).toBe('policy');

    const error = await rejection(
      setConfig(
        deps(),
        { organizationId: org, userIds: ['erin'], category: 'security', config: { email: 'NONE', inbox: 'ALL' } },
        'ak',
      ),
    );
    expect([error.status, error.httpStatus, error.details]).toEqual([
      'FAILED_PRECONDITION',
      400,
      { lockedChannels: ['email'] },
    ]);
    expect((await get('erin'))[0]?.categories).toEqual({});
    // Without the category, the category's lock does not refuse the all-categories layer.
    await setConfig(deps(), { organizationId: org, userIds: ['erin'], config: { email: 'MINE' } }, 'ak');
    await resetConfig(
      deps(),
      { organizationId: org, userIds: ['erin'], category: 'security', channels: ['email'] },
      'ak',
    );
  });

  test("one organization's policy never reaches another's users, even with ids that look alike", async () => {
    await setPolicy(
      { store: policyStore },
      { organizationId: `${org}#a`, policy: { channels: { inbox: { value: 'NONE', locked: true } } } },
      'ak',
    );
    for (const other of [org, `${org}#a#`, `${org}%23a`, `${org}#b`]) {
      const [view] = await getConfig(deps(), { organizationId: other, userId: 'u' });
      expect([other, view?.source.inbox]).toEqual([other, 'default']);
      await setConfig(deps(), { organizationId: other, userIds: ['u'], config: { inbox: 'ALL' } }, 'ak');
    }
    const [own] = await getConfig(deps(), { organizationId: `${org}#a`, userId: 'u' });
    expect(own?.source.inbox).toBe('locked');
  });

  test('a policy change reaches resolve once the cache time has passed, and at once without a cache', async () => {
    let now = 0;
    const cached = new PolicyReader(policyStore, 10, () => now);
    const resolveEmail = async (reader: PolicyReader) =>
      (
        await resolveConfig(
          { store, policies: reader, defaults: BUILT_IN_DEFAULTS },
          { organizationId: org, documentId: 'd', userIds: ['u'] },
        )
      ).users.u?.effective.email;
    await setPolicy(
      { store: policyStore },
      { organizationId: org, policy: { channels: { email: { value: 'NONE' } } } },
      'ak',
    );
    expect(await resolveEmail(cached)).toBe('NONE');
    await setPolicy(
      { store: policyStore },
      { organizationId: org, policy: { channels: { email: { value: 'ALL' } } } },
      'ak',
    );
    expect(await resolveEmail(policies)).toBe('ALL');
    now = 9_999;
    expect(await resolveEmail(cached)).toBe('NONE');
    now = 10_001;
    expect(await resolveEmail(cached)).toBe('ALL');
  });

  /** A reader with a cache time of 10 s on a clock the test moves, counting its reads of the store. */
  const countingReader = () => {
    const clock = { now: 0 };
    const reads = { count: 0 };
    const reader = new PolicyReader(
      {
        get: async (organizationId) => {
          reads.count += 1;
          return policyStore.get(organizationId);
        },
      },
      10,
      () => clock.now,
    );
    return { clock, reads, reader };
  };

  test('a cached policy is read once per cache time', async () => {
    const { clock, reads, reader: counting } = countingReader();
    await counting.get(org);
    await counting.get(org);
    expect(reads.count).toBe(1);
    clock.now = 10_001;
    await counting.get(org);
    expect(reads.count).toBe(2);
  });

  test('config/get and config/resolve read the policy in their batched read, and a warm instance keeps it as if read alone', async () => {
    const { clock, reads, reader: counting } = countingReader();
    await setPolicy(
      { store: policyStore },
      { organizationId: org, policy: { channels: { email: { value: 'NONE', locked: true } } } },
      'ak',
    );
    const deps = { store, policies: counting, defaults: BUILT_IN_DEFAULTS };
    const [view] = await getConfig(deps, { organizationId: org, userId: 'u' });
    expect(view?.source.email).toBe('locked');
    expect(reads.count).toBe(0);
    expect(counting.cached(org)?.version).toBe(1);
    // Within the cache time the next read does not ask for it again, and a policy change is not seen yet.
    await setPolicy({ store: policyStore }, { organizationId: org, policy: {} }, 'ak');
    clock.now = 9_999;
    const resolved = await resolveConfig(deps, { organizationId: org, documentId: 'd', userIds: ['u'] });
    expect(resolved.users.u?.source.email).toBe('locked');
    expect(await counting.get(org)).toMatchObject({ version: 1 });
    expect(reads.count).toBe(0);
    // After it, the next batched read brings the new version along.
    clock.now = 10_001;
    const after = await resolveConfig(deps, { organizationId: org, documentId: 'd', userIds: ['u'] });
    expect(after.users.u?.source.email).toBe('default');
    expect(counting.cached(org)?.version).toBe(2);
    expect(reads.count).toBe(0);
  });
});
