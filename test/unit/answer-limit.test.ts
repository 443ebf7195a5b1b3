import { describe, expect, test } from '@jest/globals';
import { MAX_ANSWER_BYTES } from '#shared/api/answer-size.js';
import { errorBody } from '#shared/api/envelope.js';
import { ApiError } from '#shared/api/errors.js';
import { MAX_DOCUMENT_IDS, MAX_USER_IDS } from '#shared/api/identifiers.js';
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
    setChannelsBatch: async (keys: unknown[]) => {
      calls.push('batch');
      return fail ? keys : [];
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

test('the largest valid set (1000 users x 30 documents of 256 characters) is refused before any write, naming the limit', async () => {
  for (const write of [setConfig, resetConfig] as const) {
    const { store, calls } = recording(false);
    const request = {
      organizationId: 'acme',
      userIds: ids(MAX_USER_IDS, 256, 'u'),
      documentIds: ids(MAX_DOCUMENT_IDS, 256, 'd'),
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
  const documentIds = ids(MAX_DOCUMENT_IDS, 256, 'd');
  // The most users whose answer fits (entries of equal size: the count follows from one entry's share).
  const userIds = ids(MAX_USER_IDS, 256, 'u');
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
