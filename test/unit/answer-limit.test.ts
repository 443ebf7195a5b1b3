import { describe, expect, test } from '@jest/globals';
import { MAX_ANSWER_BYTES } from '#shared/api/answer-size.js';
import { errorBody } from '#shared/api/envelope.js';
import { ApiError } from '#shared/api/errors.js';
import { MAX_ENTRIES_PER_REQUEST, MAX_USER_IDS } from '#shared/api/identifiers.js';
import { logger } from '#shared/platform/logger.js';
import { largestAnswerBytes } from '#shared/preferences/entry-writes.js';
import type { EntryKey } from '#shared/preferences/model.js';
import { resetConfig } from '#shared/preferences/reset.js';
import { setConfig } from '#shared/preferences/service.js';
import { CategoryLayersFull, type PreferenceStore } from '#shared/preferences/store.js';

// Lambda cannot return more than 6 MB: a set or reset whose per-user answer would pass 5 MB is
// refused before any write (it used to commit every write, then answer a bare 500 that a
// retrying client would send again). The size is computed from the request alone.

logger.setLogLevel('SILENT');

/**
 * A store whose every write fails: as DynamoDB does when unavailable (the 503), or because the
 * entry is full of category layers (the 400); the two largest answers.
 */
const recording = (fail: boolean | 'full') => {
  const calls: string[] = [];
  const unavailable = (key?: EntryKey) =>
    fail === 'full' && key
      ? new CategoryLayersFull(key)
      : Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable', $fault: 'server' });
  const store = {
    setChannels: async (key: EntryKey) => {
      calls.push('set');
      if (fail) throw unavailable(key);
    },
    resetChannels: async () => {
      calls.push('reset');
      if (fail) throw unavailable();
    },
  } as unknown as PreferenceStore;
  return { store, calls };
};

const ids = (count: number, length: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}-`.padEnd(length, 'é"'));

const SET_MESSAGES = {
  operation: 'set',
  done: 'Config set.',
  failed: 'Config could not be saved; retry the request.',
  couldNot: 'could not be saved',
} as const;

describe.each([
  ['one document', ids(3, 40, 'u'), ['doc-1']],
  ['several documents, with quotes and accents', ids(5, 200, 'u"é'), ids(4, 256, 'd')],
  ['the organization level', ids(2, 10, '__proto__'), undefined],
] as const)('%s', (_name, userIds, documentIds) => {
  test('the computed size is the larger of the real 503 and 400 answers, to the byte (one trailing comma aside)', async () => {
    const answer = async (fail: true | 'full', status: string) => {
      const { store } = recording(fail);
      const error = await setConfig(
        { store },
        {
          organizationId: 'acme',
          userIds: [...userIds],
          ...(documentIds ? { documentIds: [...documentIds] } : {}),
          config: { email: 'NONE' },
          category: 'comment',
        },
        'ak_1',
      ).catch((e) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status });
      return Buffer.byteLength(JSON.stringify(errorBody(error.status, error.message, error.details)), 'utf8');
    };
    const real = Math.max(await answer(true, 'UNAVAILABLE'), await answer('full', 'INVALID_ARGUMENT'));
    const computed = largestAnswerBytes(userIds, documentIds ?? [null], SET_MESSAGES);
    expect(computed - real).toBeGreaterThanOrEqual(0);
    expect(computed - real).toBeLessThanOrEqual(1);
  });
});

/** Identifiers of 256 characters that are 3 bytes each in UTF-8: the largest answer per entry. */
const wide = (count: number, prefix: string) => ids(count, 256, prefix).map((id) => id.replace(/[é"]/g, '€'));

describe('at most 5,000 entries per request (distinct users times documents)', () => {
  const request = (users: number, documents: number | undefined) => ({
    organizationId: 'acme',
    // Duplicates collapse before counting.
    userIds: [...ids(users, 8, 'u'), 'u0-'.padEnd(8, 'é"')],
    ...(documents === undefined ? {} : { documentIds: ids(documents, 8, 'd') }),
    config: { inbox: 'NONE' as const },
  });

  test.each([
    ['1000 users x 6 documents', 1000, 6, 6000],
    ['167 users x 30 documents', 167, 30, 5010],
  ])(
    '%s: a set and a reset are refused before any write, naming the limit and the import',
    async (_name, users, documents, entries) => {
      for (const write of [setConfig, resetConfig] as const) {
        const { store, calls } = recording(false);
        await expect(write({ store }, request(users, documents), 'ak_1')).rejects.toMatchObject({
          status: 'INVALID_ARGUMENT',
          message: expect.stringMatching(
            new RegExp(
              `would write ${entries} entries .*over the limit of ${MAX_ENTRIES_PER_REQUEST} entries per request.*bulk import`,
            ),
          ),
        });
        expect(calls).toEqual([]);
      }
    },
  );

  test.each([
    ['1000 users x 5 documents', 1000, 5],
    ['1000 users at the organization level', 1000, undefined],
    ['166 users x 30 documents', 166, 30],
  ])('%s: written', async (_name, users, documents) => {
    for (const write of [setConfig, resetConfig] as const) {
      const { store, calls } = recording(false);
      const answer = await write({ store }, request(users, documents), 'ak_1');
      expect(Object.keys(answer)).toHaveLength(users);
      expect(calls).toHaveLength(users * (documents ?? 1));
    }
  });
});

test('the largest answer (1000 users x 5 documents, ids of 256 three-byte characters) is refused before any write, naming the limit', async () => {
  for (const write of [setConfig, resetConfig] as const) {
    const { store, calls } = recording(false);
    const request = {
      organizationId: 'acme',
      userIds: wide(MAX_USER_IDS, 'u'),
      documentIds: wide(MAX_ENTRIES_PER_REQUEST / MAX_USER_IDS, 'd'),
      config: { inbox: 'NONE' as const },
    };
    await expect(write({ store }, request, 'ak_1')).rejects.toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: expect.stringContaining('over the limit of 5 MB (5000000 bytes of UTF-8)'),
    });
    expect(calls).toEqual([]);
  }
});

test('at the limit: the largest request that fits is written, one more user is refused', async () => {
  const documentIds = wide(MAX_ENTRIES_PER_REQUEST / MAX_USER_IDS, 'd');
  // The most users whose answer fits (entries of equal size: the count follows from one entry's share).
  const userIds = wide(MAX_USER_IDS, 'u');
  let fits = 0;
  while (
    fits < userIds.length &&
    largestAnswerBytes(userIds.slice(0, fits + 1), documentIds, SET_MESSAGES) <= MAX_ANSWER_BYTES
  )
    fits++;
  expect(fits).toBeGreaterThan(0);
  expect(fits).toBeLessThan(MAX_USER_IDS);

  const under = recording(false);
  const answer = await setConfig(
    { store: under.store },
    { organizationId: 'acme', userIds: userIds.slice(0, fits), documentIds, config: { inbox: 'NONE' } },
    'ak_1',
  );
  expect(Object.keys(answer)).toHaveLength(fits);
  expect(under.calls.length).toBeGreaterThan(0);

  const over = recording(false);
  await expect(
    setConfig(
      { store: over.store },
      { organizationId: 'acme', userIds: userIds.slice(0, fits + 1), documentIds, config: { inbox: 'NONE' } },
      'ak_1',
    ),
  ).rejects.toMatchObject({ status: 'INVALID_ARGUMENT' });
  expect(over.calls).toEqual([]);
});
