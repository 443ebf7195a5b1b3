import { describe, expect, test } from '@jest/globals';
import { jsonBytes, MAX_ANSWER_BYTES } from '#shared/api/answer-size.js';
import { BUILT_IN_DEFAULTS } from '#shared/api/channels.js';
import { successBody } from '#shared/api/envelope.js';
import { MAX_USER_IDS } from '#shared/api/identifiers.js';
import type { StoredEntry } from '#shared/preferences/model.js';
import { resolveConfig } from '#shared/preferences/resolve.js';
import { largestResolveAnswerBytes } from '#shared/preferences/resolve-size.js';
import { RESOLVE_CONFIG_MESSAGE, type ResolveConfigRequest } from '#shared/preferences/routes/resolve-config.js';
import type { PreferenceStore, UserLayers } from '#shared/preferences/store.js';

// Lambda cannot return more than 6 MB: config/resolve, whose answer grows with its users, refuses
// a request whose answer could pass 5 MB before any read, as set, reset and links/create do.

/**
 * A store where every user's organization-level entry holds the category's layer (the longest
 * source) set to ALL on every channel, and a daily digest of every channel (a deferral with a
 * `deliverAt` on each): every channel delivering with the longest values. Counts its reads.
 */
const worstCaseStore = () => {
  const reads: string[] = [];
  const layersOf = (organizationId: string, userIds: readonly string[]) =>
    new Map<string, UserLayers>(
      userIds.map((userId) => {
        const organization = {
          organizationId,
          userId,
          documentId: null,
          scope: 'organization',
          config: {},
          categories: { comment: { config: { inbox: 'ALL', email: 'ALL', slack: 'ALL' } } },
          updatedAt: '2026-01-01T00:00:00.000Z',
          updatedBy: 'ak_1',
          version: 1,
          schedule: {
            timeZone: 'Europe/Berlin',
            digest: { channels: ['inbox', 'email', 'slack'], cadence: 'daily', at: '08:30' },
          },
        } as unknown as StoredEntry;
        return [userId, { organization }];
      }),
    );
  const store = {
    getUserLayers: async (organizationId: string, _documentId: string, userIds: readonly string[]) => {
      reads.push('getUserLayers');
      return layersOf(organizationId, userIds);
    },
    getUserLayersWithPolicy: async (organizationId: string, _documentId: string, userIds: readonly string[]) => {
      reads.push('getUserLayersWithPolicy');
      return { read: layersOf(organizationId, userIds), policy: { policy: {}, version: 0 } };
    },
  } as unknown as PreferenceStore;
  return { store, reads };
};

/** `count` distinct ids of `length` UTF-16 units, of a character of 3 UTF-8 bytes. */
const ids = (count: number, length: number, prefix = 'u') =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}-`.padEnd(length, '漢'));

const request = (userIds: string[], withActivity = true): ResolveConfigRequest => ({
  organizationId: 'acme',
  documentId: 'doc-1',
  userIds,
  category: 'comment',
  at: '2026-11-23T22:30:00Z',
  ...(withActivity ? { activity: { involvedUserIds: userIds.slice(0, 1) } } : {}),
});

const answerBytes = async (resolveRequest: ResolveConfigRequest) => {
  const { store } = worstCaseStore();
  const data = await resolveConfig({ store, defaults: BUILT_IN_DEFAULTS }, resolveRequest);
  return jsonBytes(successBody(RESOLVE_CONFIG_MESSAGE, data));
};

describe('config/resolve answer size', () => {
  test('the computed bound is at least the real answer with every channel delivering, and close to it', async () => {
    for (const resolveRequest of [
      request(ids(50, 256)),
      request(ids(7, 3, '"é'), true),
      request(ids(50, 256), false),
    ]) {
      const real = await answerBytes(resolveRequest);
      const computed = largestResolveAnswerBytes(resolveRequest);
      expect(computed).toBeGreaterThanOrEqual(real);
      expect(computed).toBeLessThan(real * 1.1);
    }
  });

  test('1000 users of 256-character ids, every channel delivering (over 5 MB): refused before any read, naming the limit', async () => {
    const userIds = ids(MAX_USER_IDS, 256);
    // The answer it would get: 10 times that of a tenth of the users (each user's share is the same).
    expect((await answerBytes(request(userIds.slice(0, 100)))) * 10).toBeGreaterThan(MAX_ANSWER_BYTES);
    const { store, reads } = worstCaseStore();
    await expect(resolveConfig({ store, defaults: BUILT_IN_DEFAULTS }, request(userIds))).rejects.toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: expect.stringContaining('over the limit of 5 MB (5000000 bytes of UTF-8)'),
    });
    expect(reads).toEqual([]);
  });

  test('a large request that fits is answered: 1000 users of 64-character ids with an activity, or of 256 without', async () => {
    for (const resolveRequest of [request(ids(MAX_USER_IDS, 64)), request(ids(MAX_USER_IDS, 256), false)]) {
      const { store, reads } = worstCaseStore();
      const data = await resolveConfig({ store, defaults: BUILT_IN_DEFAULTS }, resolveRequest);
      expect(Object.keys(data.users)).toHaveLength(MAX_USER_IDS);
      expect(reads).toHaveLength(1);
    }
  });
});
