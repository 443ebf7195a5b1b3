import { describe, expect, jest, test } from '@jest/globals';
import * as z from 'zod/mini';
import { ApiError } from '#shared/api/errors.js';
import type { Authenticator } from '#shared/auth/authenticator.js';
import type { RateLimiter } from '#shared/auth/rate-limit.js';
import { answerFor } from '#shared/edge/error-kinds.js';
import { apiEnvelope } from '#shared/edge/middlewares/api-envelope.js';
import { apiErrors } from '#shared/edge/middlewares/api-errors.js';
import { authenticate } from '#shared/edge/middlewares/authenticate.js';
import { credentialLogKeys } from '#shared/edge/middlewares/log-keys.js';
import { pageErrors } from '#shared/edge/middlewares/page-errors.js';
import { rateLimit } from '#shared/edge/middlewares/rate-limit.js';
import { readBody } from '#shared/edge/middlewares/read-body.js';
import { requireScope } from '#shared/edge/middlewares/require-scope.js';
import { responseHeaders } from '#shared/edge/middlewares/response-headers.js';
import type { ApiRequest } from '#shared/edge/middlewares/types.js';
import { logger } from '#shared/platform/logger.js';
import { apiEvent, lambdaContext } from '../support/api-events.js';
import { authHeaders, credentialRecord } from '../support/credentials.js';

/** Each middleware of the edge on its own, on a request as Middy hands it over. */
const requestOf = (options: Parameters<typeof apiEvent>[1] = {}): ApiRequest =>
  ({
    event: apiEvent('/v2/x', options),
    context: lambdaContext(),
    response: undefined,
    error: undefined,
    internal: {},
  }) as unknown as ApiRequest;

const throttled = () => new ApiError('RESOURCE_EXHAUSTED', 'Slow down.', { retryAfterSeconds: 7 });

describe('the registry of error kinds', () => {
  test.each([
    ['a refusal with when to come back', throttled(), 'throttled', 'RESOURCE_EXHAUSTED', { 'retry-after': '7' }],
    ['a refusal', new ApiError('NOT_FOUND', 'No such thing.'), 'refused', 'NOT_FOUND', {}],
    ['a throttle without a wait', new ApiError('RESOURCE_EXHAUSTED', 'Full.'), 'refused', 'RESOURCE_EXHAUSTED', {}],
    [
      'a dependency out of retries',
      Object.assign(new Error('x'), { name: 'ThrottlingException' }),
      'unavailable',
      'UNAVAILABLE',
      {},
    ],
    ['anything else', new TypeError('secret internals'), 'unexpected', 'INTERNAL', {}],
  ])('%s', (_name, error, kind, status, headers) => {
    const answer = answerFor(error, 'req-1');
    expect(answer).toMatchObject({ kind, status, headers });
    expect(answer.message).not.toContain('secret');
    if (kind === 'unavailable' || kind === 'unexpected') expect(answer.details).toEqual({ requestId: 'req-1' });
  });
});

describe('authenticate', () => {
  test('puts the credential on the context, from the two headers', async () => {
    const credential = credentialRecord();
    const authenticator = { authenticate: jest.fn(async () => credential) } as unknown as Authenticator;
    const request = requestOf({ headers: authHeaders('ak_1', 'st_1') });
    await authenticate(authenticator).before?.(request);
    expect(authenticator.authenticate).toHaveBeenCalledWith('ak_1', 'st_1');
    expect(request.context.credential).toBe(credential);
  });

  test('a lookup past the deadline fails as a TimeoutError, before the function does', async () => {
    const authenticator = { authenticate: () => new Promise(() => {}) } as unknown as Authenticator;
    const request = requestOf();
    request.context.getRemainingTimeInMillis = () => 250;
    await expect(authenticate(authenticator).before?.(request)).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});

test('credentialLogKeys names the public key of the credential in every log line', () => {
  const appendKeys = jest.spyOn(logger, 'appendKeys');
  const request = requestOf();
  request.context.credential = credentialRecord({ apiKey: 'ak_logged' });
  credentialLogKeys().before?.(request);
  expect(appendKeys).toHaveBeenCalledWith({ apiKey: 'ak_logged' });
  appendKeys.mockRestore();
});

describe('rateLimit', () => {
  const limiter = (admission: unknown) => ({ admitCredential: async () => admission }) as unknown as RateLimiter;
  const withCredential = () => {
    const request = requestOf();
    request.context.credential = credentialRecord();
    return request;
  };

  test('admits within the limit', async () => {
    const request = withCredential();
    await expect(rateLimit(limiter({ admitted: true })).before?.(request)).resolves.toBeUndefined();
  });

  test('over it: RESOURCE_EXHAUSTED with retryAfterSeconds', async () => {
    const request = withCredential();
    await expect(rateLimit(limiter({ admitted: false, retryAfterSeconds: 3 })).before?.(request)).rejects.toMatchObject(
      { status: 'RESOURCE_EXHAUSTED', details: { retryAfterSeconds: 3 } },
    );
  });
});

test('requireScope refuses a credential without the route scope', () => {
  const request = requestOf();
  request.context.credential = credentialRecord({ scopes: ['read'] });
  expect(() => requireScope('read').before?.(request)).not.toThrow();
  expect(() => requireScope('write').before?.(request)).toThrow(
    expect.objectContaining({ status: 'PERMISSION_DENIED' }),
  );
});

test('readBody puts the checked data on the context, or refuses it', () => {
  const schema = z.strictObject({ organizationId: z.string() });
  const request = requestOf({ body: { data: { organizationId: 'o' } } });
  readBody(schema).before?.(request);
  expect(request.context.data).toEqual({ organizationId: 'o' });
  expect(() => readBody(schema).before?.(requestOf({ body: { data: {} } }))).toThrow(
    expect.objectContaining({ status: 'INVALID_ARGUMENT', message: 'data.organizationId is required' }),
  );
});

test('apiEnvelope wraps a result and leaves an HTTP answer as it is', () => {
  const request = requestOf();
  request.response = { message: 'Done.', data: { n: 1 } };
  apiEnvelope().after?.(request);
  expect(request.response).toEqual({
    statusCode: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
    body: JSON.stringify({ result: { status: 'success', message: 'Done.', data: { n: 1 } } }),
  });
  const answer = { statusCode: 204, body: '' };
  request.response = answer;
  apiEnvelope().after?.(request);
  expect(request.response).toBe(answer);
});

describe('apiErrors', () => {
  test('a throttle: 429, its Retry-After, the envelope', () => {
    const request = requestOf();
    request.error = throttled();
    apiErrors().onError?.(request);
    expect(request.response).toMatchObject({ statusCode: 429, headers: { 'retry-after': '7' } });
    expect(JSON.parse((request.response as { body: string }).body)).toEqual({
      error: { status: 'RESOURCE_EXHAUSTED', message: 'Slow down.', details: { retryAfterSeconds: 7 } },
    });
  });

  test('an unexpected error: 500, the request id, no internals, logged', () => {
    const error = jest.spyOn(logger, 'error').mockImplementation(() => {});
    const request = requestOf();
    request.error = new Error('secret internals');
    apiErrors().onError?.(request);
    const body = (request.response as { body: string }).body;
    expect((request.response as { statusCode: number }).statusCode).toBe(500);
    expect(body).not.toContain('secret');
    expect(JSON.parse(body).error.details).toEqual({ requestId: request.context.awsRequestId });
    expect(error).toHaveBeenCalledWith('Unexpected error', { error: request.error });
    error.mockRestore();
  });
});

describe('responseHeaders', () => {
  const headers = { 'cache-control': 'no-store', 'content-type': 'text/plain' };
  test('adds its headers to an answer and to an error answer, keeping the answer own', () => {
    const request = requestOf();
    request.response = { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '' };
    responseHeaders(headers).after?.(request as never);
    expect((request.response as { headers: unknown }).headers).toEqual({
      'cache-control': 'no-store',
      'content-type': 'application/json',
    });
    request.response = { statusCode: 500, body: '' };
    responseHeaders(headers).onError?.(request as never);
    expect((request.response as { headers: unknown }).headers).toEqual(headers);
  });

  test('leaves a missing answer missing (the error is then not handled)', () => {
    const request = requestOf();
    responseHeaders(headers).onError?.(request as never);
    expect(request.response).toBeUndefined();
  });
});

test('pageErrors answers any error with the try-again page, 429 and Retry-After, logged under its kind', () => {
  const error = jest.spyOn(logger, 'error').mockImplementation(() => {});
  const request = requestOf();
  request.error = Object.assign(new Error('x'), { name: 'ThrottlingException' });
  pageErrors(() => '<p>try again</p>').onError?.(request as never);
  expect(request.response).toEqual({ statusCode: 429, headers: { 'retry-after': '30' }, body: '<p>try again</p>' });
  expect(error).toHaveBeenCalledWith('Dependency unavailable', expect.objectContaining({ error: request.error }));
  error.mockRestore();
});
