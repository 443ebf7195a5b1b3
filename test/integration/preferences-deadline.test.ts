import { BatchExecuteStatementCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, jest, test } from '@jest/globals';
import type { ApiError } from '#shared/api/errors.js';
import { logger } from '#shared/platform/logger.js';
import { REQUEST_WRITE_CONCURRENCY } from '#shared/preferences/batching.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { resetConfig } from '#shared/preferences/reset.js';
import { setConfig } from '#shared/preferences/service.js';
import { uniqueId, useTestDynamo } from '../support/dynamo.js';

// At the deadline the route answers 503; the writes it has not made must not go on (on Lambda
// a frozen write resumes in a later invocation and could undo a newer setting).

const dynamo = useTestDynamo();
let store: DynamoPreferenceStore;

beforeEach(async () => {
  org = uniqueId('org#deadline');
  store = new DynamoPreferenceStore(dynamo.doc, dynamo.tables.config);
});

/** The running test's organization: a fresh one each test. */
let org = '';
const userIds = Array.from({ length: 10 }, (_, i) => `u${i}`);

/** Counts write calls (UpdateItem, and a batch if one were sent); the deadline fires as the `abortAt`-th one is issued. */
const deadlineAt = (abortAt: number) => {
  const controller = new AbortController();
  const counts = { updates: 0, afterAbort: 0 };
  const send = dynamo.doc.send.bind(dynamo.doc) as (...args: unknown[]) => Promise<unknown>;
  const spy = jest.spyOn(dynamo.doc, 'send').mockImplementation(((command: unknown, ...rest: unknown[]) => {
    if (command instanceof UpdateCommand || command instanceof BatchExecuteStatementCommand) {
      if (controller.signal.aborted) counts.afterAbort += 1;
      counts.updates += 1;
      if (counts.updates === abortAt) controller.abort(new Error('deadline'));
    }
    return send(command, ...rest);
  }) as never);
  return { signal: controller.signal, counts, restore: () => spy.mockRestore() };
};

const storedUsers = async () =>
  (await store.getEntries(userIds.map((userId) => ({ organizationId: org, userId, documentId: null })))).map(
    (e) => e.userId,
  );

describe('the deadline stops a request’s writes', () => {
  beforeEach(() => {
    jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  test('an aborted set issues no further writes and reports the unwritten users as failed (503)', async () => {
    // One write at a time: the third meets the deadline.
    const deadline = deadlineAt(3);
    const error = (await setConfig(
      { store, concurrency: 1 },
      { organizationId: org, userIds, config: { inbox: 'NONE' } },
      'ak',
      { signal: deadline.signal },
    )
      .catch((e: unknown) => e)
      .finally(deadline.restore)) as ApiError;

    expect(deadline.counts).toEqual({ updates: 3, afterAbort: 0 });
    expect(error.status).toBe('UNAVAILABLE');
    const details = error.details as Record<string, { success: boolean }>;
    expect(userIds.filter((userId) => details[userId]?.success)).toEqual(['u0', 'u1']);
    // The write under way at the deadline was cancelled, and nothing after it was issued.
    expect((await storedUsers()).sort()).toEqual(['u0', 'u1']);
  });

  test('an aborted set of many entries issues no further write once the deadline fires, and reports its users as failed', async () => {
    const many = Array.from({ length: 250 }, (_, i) => `b${i}`);
    const deadline = deadlineAt(1);
    const error = (await setConfig(
      { store },
      { organizationId: org, userIds: many, documentIds: ['d'], config: { inbox: 'NONE' } },
      'ak',
      { signal: deadline.signal },
    )
      .catch((e: unknown) => e)
      .finally(deadline.restore)) as ApiError;

    // The writes already under way when the first one fired the deadline (at most
    // REQUEST_WRITE_CONCURRENCY), and none issued after it.
    expect(deadline.counts.afterAbort).toBe(0);
    expect(deadline.counts.updates).toBeLessThanOrEqual(REQUEST_WRITE_CONCURRENCY);
    expect(error.status).toBe('UNAVAILABLE');
    const details = error.details as Record<string, { success: boolean }>;
    expect(many.filter((userId) => details[userId]?.success).length).toBeLessThan(deadline.counts.updates);
  });

  test('an aborted reset issues no further writes either', async () => {
    await setConfig({ store }, { organizationId: org, userIds, config: { inbox: 'NONE' } }, 'ak');
    // One write at a time: the second meets the deadline.
    const deadline = deadlineAt(2);
    const error = (await resetConfig({ store, concurrency: 1 }, { organizationId: org, userIds }, 'ak', {
      signal: deadline.signal,
    })
      .catch((e: unknown) => e)
      .finally(deadline.restore)) as ApiError;

    expect(deadline.counts).toEqual({ updates: 2, afterAbort: 0 });
    expect(error.status).toBe('UNAVAILABLE');
    expect(Object.values(error.details as Record<string, { success: boolean }>).filter((r) => r.success)).toHaveLength(
      1,
    );
    expect((await storedUsers()).sort()).toEqual(userIds.slice(1));
  });

  test('an aborted reset of many entries issues no further write once the deadline fires, and reports its users as failed', async () => {
    const many = Array.from({ length: 250 }, (_, i) => `b${i}`);
    await setConfig(
      { store },
      { organizationId: org, userIds: many, documentIds: ['d'], config: { inbox: 'NONE' } },
      'ak',
    );
    const deadline = deadlineAt(1);
    const error = (await resetConfig({ store }, { organizationId: org, userIds: many, documentIds: ['d'] }, 'ak', {
      signal: deadline.signal,
    })
      .catch((e: unknown) => e)
      .finally(deadline.restore)) as ApiError;

    expect(deadline.counts.afterAbort).toBe(0);
    expect(deadline.counts.updates).toBeLessThanOrEqual(REQUEST_WRITE_CONCURRENCY);
    expect(error.status).toBe('UNAVAILABLE');
  });

  test('a signal already fired: nothing is written, every user fails', async () => {
    const error = (await setConfig({ store }, { organizationId: org, userIds, config: { inbox: 'NONE' } }, 'ak', {
      signal: AbortSignal.abort(),
    }).catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe('UNAVAILABLE');
    expect(Object.values(error.details as Record<string, { success: boolean }>).some((r) => r.success)).toBe(false);
    expect(await storedUsers()).toEqual([]);
  });
});
