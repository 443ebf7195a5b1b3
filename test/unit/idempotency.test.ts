import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, jest, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import * as z from 'zod/mini';
import { ApiError } from '#shared/api/errors.js';
import type { Authenticator } from '#shared/auth/authenticator.js';
import type { RateLimiter } from '#shared/auth/rate-limit.js';
import { httpRoute } from '#shared/edge/http-route.js';
import { idempotency } from '#shared/edge/middlewares/idempotency.js';
import type { ApiRequest } from '#shared/edge/middlewares/types.js';
import { type Claim, DynamoIdempotencyStore, type IdempotencyStore } from '#shared/jobs/idempotency.js';
import { logger } from '#shared/platform/logger.js';
import { apiEvent, lambdaContext } from '../support/api-events.js';
import { authHeaders, credentialRecord } from '../support/credentials.js';

/** The Idempotency-Key middleware on its own, over a store that answers what each case needs. */
const requestWith = (key: string | undefined, data: unknown = { organizationId: 'o', userId: 'u' }) => {
  const request = {
    event: apiEvent('/v2/x', { headers: key === undefined ? {} : { 'idempotency-key': key } }),
    context: lambdaContext(),
    response: undefined,
    error: undefined,
    internal: {},
  } as unknown as ApiRequest;
  request.context.credential = credentialRecord({ apiKey: 'ak_1' });
  request.context.data = data;
  return request;
};

const storeAnswering = (claim: Claim | ((fingerprint: string) => Claim)) => {
  const store = {
    claim: jest.fn(async ({ fingerprint }: { fingerprint: string }) =>
      typeof claim === 'function' ? claim(fingerprint) : claim,
    ),
    record: jest.fn(async (..._args: Parameters<IdempotencyStore['record']>) => {}),
    release: jest.fn(async (..._args: Parameters<IdempotencyStore['release']>) => {}),
  };
  return store as typeof store & IdempotencyStore;
};

describe('the Idempotency-Key middleware', () => {
  test('without the header, nothing is claimed', async () => {
    const store = storeAnswering({ outcome: 'claimed', claimId: 'c' });
    await expect(idempotency(store, 'eraseUser').before?.(requestWith(undefined))).resolves.toBeUndefined();
    expect(store.claim).not.toHaveBeenCalled();
  });

  test('a claimed key records the answer after the route, and gives the claim up when it failed', async () => {
    const store = storeAnswering({ outcome: 'claimed', claimId: 'c-1' });
    const middleware = idempotency(store, 'eraseUser', () => 1_000);
    const succeeded = requestWith('k');
    await middleware.before?.(succeeded);
    succeeded.response = { message: 'Started.', data: { erasureId: 'e-1' } };
    await middleware.after?.(succeeded);
    expect(store.record).toHaveBeenCalledWith(
      expect.objectContaining({ apiKey: 'ak_1', key: 'k' }),
      'c-1',
      JSON.stringify({ message: 'Started.', data: { erasureId: 'e-1' } }),
      1_000,
    );
    const failed = requestWith('k');
    await middleware.before?.(failed);
    failed.error = new ApiError('UNAVAILABLE', 'Queue down.');
    await middleware.onError?.(failed);
    expect(store.release).toHaveBeenCalledWith(expect.objectContaining({ key: 'k' }), 'c-1');
  });

  test('an answered key gives the first answer for the handler to answer in place of the route', async () => {
    const answer = JSON.stringify({ message: 'Started.', data: { erasureId: 'e-1' } });
    const store = storeAnswering((fingerprint) => ({ outcome: 'answered', fingerprint, answer }));
    const request = requestWith('k');
    expect(await idempotency(store, 'eraseUser').before?.(request)).toBeUndefined();
    expect(request.context.answered).toEqual({ message: 'Started.', data: { erasureId: 'e-1' } });
  });

  test('a key used for another request is refused; one still being answered is ABORTED', async () => {
    const other = storeAnswering({ outcome: 'answered', fingerprint: 'another', answer: '{}' });
    await expect(idempotency(other, 'eraseUser').before?.(requestWith('k'))).rejects.toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/^Idempotency-Key was already used with a different request/),
    });
    const busy = storeAnswering((fingerprint) => ({ outcome: 'in_progress', fingerprint }));
    await expect(idempotency(busy, 'eraseUser').before?.(requestWith('k'))).rejects.toMatchObject({
      status: 'ABORTED',
    });
  });

  test('the same data for another operation is another request', async () => {
    const fingerprints: string[] = [];
    const store = storeAnswering((fingerprint) => {
      fingerprints.push(fingerprint);
      return { outcome: 'claimed', claimId: 'c' };
    });
    await idempotency(store, 'eraseUser').before?.(requestWith('k'));
    await idempotency(store, 'exportUser').before?.(requestWith('k'));
    expect(fingerprints[0]).not.toBe(fingerprints[1]);
  });

  test('a release that fails is logged, and the claim lapses on its own', async () => {
    const store = storeAnswering({ outcome: 'claimed', claimId: 'c' });
    store.release.mockRejectedValueOnce(new Error('down'));
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => {});
    const middleware = idempotency(store, 'eraseUser');
    const request = requestWith('k');
    await middleware.before?.(request);
    await expect(middleware.onError?.(request)).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith('Idempotency claim not released', expect.anything());
    warn.mockRestore();
  });
});

describe('DynamoIdempotencyStore', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  const store = new DynamoIdempotencyStore(
    DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local' })),
    'jobs',
  );
  const asked = { apiKey: 'ak_1', key: 'k', fingerprint: 'f' };
  const conditionFailed = () => Object.assign(new Error('no'), { name: 'ConditionalCheckFailedException' });

  test('claims a free key with one conditional write, good for 24 hours', async () => {
    ddb.reset();
    ddb.on(PutCommand).resolves({});
    expect(await store.claim(asked, 1_000_000)).toMatchObject({ outcome: 'claimed' });
    const put = ddb.commandCalls(PutCommand)[0]?.args[0].input;
    expect(put?.ConditionExpression).toContain('attribute_not_exists(pk)');
    expect(put?.Item).toMatchObject({ sk: 'KEY', fingerprint: 'f', expiresAt: 1_000 + 24 * 3600 });
    expect(JSON.stringify(put?.Item)).not.toContain('ak_1');
  });

  test('a key held tells what holds it: an answer, or a claim under way', async () => {
    ddb.reset();
    ddb.on(PutCommand).rejects(conditionFailed());
    ddb
      .on(GetCommand)
      .resolvesOnce({ Item: { fingerprint: 'g', claimId: 'x', answer: 'A' } })
      .resolvesOnce({ Item: { fingerprint: 'f', claimId: 'x' } });
    expect(await store.claim(asked, 0)).toEqual({ outcome: 'answered', fingerprint: 'g', answer: 'A' });
    expect(await store.claim(asked, 0)).toEqual({ outcome: 'in_progress', fingerprint: 'f' });
  });

  test('an SDK retry of its own applied claim is still its claim', async () => {
    ddb.reset();
    let claimId: unknown;
    ddb.on(PutCommand).callsFake((input: { Item: { claimId: string } }) => {
      claimId = input.Item.claimId;
      throw conditionFailed();
    });
    ddb.on(GetCommand).callsFake(() => ({ Item: { fingerprint: 'f', claimId } }));
    expect(await store.claim(asked, 0)).toEqual({ outcome: 'claimed', claimId });
  });

  test('record and release write only while the claim is this one', async () => {
    ddb.reset();
    ddb.on(PutCommand).rejects(conditionFailed());
    ddb.on(DeleteCommand).rejects(conditionFailed());
    await expect(store.record(asked, 'c', 'A', 0)).resolves.toBeUndefined();
    await expect(store.release(asked, 'c')).resolves.toBeUndefined();
    expect(ddb.commandCalls(DeleteCommand)[0]?.args[0].input.ConditionExpression).toContain('claimId = :claimId');
  });
});

test('through a route: the replay is the first answer in the envelope, and the route is not called', async () => {
  const answer = JSON.stringify({ message: 'Started.', data: { erasureId: 'e-1' } });
  const store = storeAnswering((fingerprint) => ({ outcome: 'answered', fingerprint, answer }));
  const handle = jest.fn(async () => ({ erasureId: 'e-2' }));
  const credential = credentialRecord({ apiKey: 'ak_1', organizationIds: ['o'] });
  const handler = httpRoute(
    {
      operationId: 'eraseUser',
      request: z.strictObject({ organizationId: z.string(), userId: z.string() }),
      message: 'Started.',
      scope: 'read',
      idempotencyKey: true,
    },
    handle,
    {
      authenticator: { authenticate: async () => credential } as unknown as Authenticator,
      rateLimiter: { admitCredential: async () => ({ admitted: true }) } as unknown as RateLimiter,
      idempotency: store,
    },
  );
  const response = await handler(
    apiEvent('/v2/x', {
      headers: { ...authHeaders('ak_1'), 'idempotency-key': 'k' },
      body: { data: { organizationId: 'o', userId: 'u' } },
    }),
    lambdaContext(),
  );
  expect(handle).not.toHaveBeenCalled();
  expect(response.statusCode).toBe(200);
  expect(JSON.parse(response.body as string)).toEqual({
    result: { status: 'success', message: 'Started.', data: { erasureId: 'e-1' } },
  });
  expect(store.record).not.toHaveBeenCalled();
});
