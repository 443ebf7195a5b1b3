import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, expect, jest, test } from '@jest/globals';
import { hashToken } from '#shared/auth/credential.js';
import type { HttpHandler } from '#shared/edge/http-route.js';
import { ENV } from '#shared/platform/environment.js';
import { logger } from '#shared/platform/logger.js';
import { apiEvent, lambdaContext, parseResponse } from '../support/api-events.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';
import { setDynamoTestEnv } from '../support/test-env.js';
import { type FaultProxy, failFirst, startFaultProxy } from './fault-proxy.js';
import { PATHS } from './support.js';

// DynamoDB that stops answering (a silent connection): the real set handler and its real SDK
// client, DynamoDB Local behind the fault proxy. A hung call must be abandoned and retried, and a
// dependency that hangs for good must end in 503 UNAVAILABLE before the function's deadline,
// not in a Lambda timeout (which API Gateway answers outside the contract's envelope).
let dynamo: TestDynamo;
let proxy: FaultProxy;
let set: HttpHandler;
const apiKey = 'ak_timeouts';
const token = 'st_timeouts-token';

beforeAll(async () => {
  dynamo = await startTestDynamo({ tables: 'own' });
  proxy = await startFaultProxy(() => dynamo.endpoint);
  setDynamoTestEnv(dynamo, proxy.endpoint);
  process.env[ENV.credentialCacheSeconds] = '0';
  await dynamo.doc.send(
    new PutCommand({
      TableName: dynamo.tables.credentials,
      Item: { apiKey, tokenHash: hashToken(token), organizationIds: ['org-1'], createdAt: new Date().toISOString() },
    }),
  );
  set = (await import('#functions/set-config.js')).handler;
});
afterAll(async () => {
  await proxy?.close();
  await dynamo?.close();
});
beforeEach(() => proxy.reset());

/** The function's context as Lambda gives it: the time left counts down from `timeoutMs`. */
const deadlineContext = (timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  return Object.assign(lambdaContext(), { getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) });
};

const callSet = async (userId: string, timeoutMs = 10_000) => {
  const started = Date.now();
  const response = parseResponse(
    await set(
      apiEvent(PATHS.set, {
        headers: { 'x-service-api-key': apiKey, 'x-service-auth-token': token },
        body: { data: { organizationId: 'org-1', userIds: [userId], config: { inbox: 'MINE' } } },
      }),
      deadlineContext(timeoutMs),
    ),
  );
  return { response, ms: Date.now() - started };
};

test('a call whose connection hangs is abandoned and retried: 200 within a few seconds, the write stored once', async () => {
  proxy.policy = failFirst(['hang'], ['GetItem', 'UpdateItem']);
  const { response, ms } = await callSet('hung-once');
  expect(response.statusCode).toBe(200);
  expect(ms).toBeLessThan(5_000);
  // Two reads each hang once and are retried: the credential and the organization's policy (locks).
  expect(proxy.injected.get('GetItem:hang')).toBe(2);
  expect(proxy.injected.get('UpdateItem:hang')).toBe(1);
  const items = (await dynamo.doc.send(new ScanCommand({ TableName: dynamo.tables.config }))).Items ?? [];
  expect(items.filter((item) => item.sk === 'hung-once').map((item) => item.inbox)).toEqual(['MINE']);
}, 15_000);

test('writes that hang for good: 503 UNAVAILABLE before the deadline', async () => {
  proxy.policy = ({ operation }) => (operation === 'UpdateItem' ? 'hang' : undefined);
  const warn = jest.spyOn(logger, 'warn');
  const error = jest.spyOn(logger, 'error');
  const { response } = await callSet('hung-write', 3_000);
  const warnings = warn.mock.calls.map(([message]) => message);
  const errors = error.mock.calls.map(([message]) => message);
  warn.mockRestore();
  error.mockRestore();
  expect(response.statusCode).toBe(503);
  expect(response.body.error?.status).toBe('UNAVAILABLE');
  // Answered by the route's own early timeout (DEADLINE_MARGIN_MS before the deadline, in timer
  // order: test/unit/callable-api.test.ts), not by the SDK giving up or Lambda's timeout. Not
  // timed: on a busy machine the answer came 100 ms after the wall-clock deadline all the same.
  expect(warnings).toContain('Config set stopped at the deadline');
  expect(errors).not.toContain('Config set failed');
  // The route answers before Middy's own timeout would: with the per-user map (contract 4.1).
  expect(response.body.error?.details).toEqual({
    'hung-write': expect.objectContaining({ success: false, userId: 'hung-write', message: expect.any(String) }),
  });
}, 15_000);

test('the credential lookup hanging for good: 503 UNAVAILABLE within the 10 s function timeout', async () => {
  proxy.policy = ({ operation }) => (operation === 'GetItem' ? 'hang' : undefined);
  const { response, ms } = await callSet('hung-auth', 10_000);
  expect(response.statusCode).toBe(503);
  expect(response.body.error?.status).toBe('UNAVAILABLE');
  expect(ms).toBeLessThan(10_000);
}, 20_000);

test('the credential lookup throttled for good: 503 UNAVAILABLE before the deadline, not after the SDK backoff', async () => {
  // The SDK backs off from throttling for up to ~15 s over its attempts: longer than a function's time.
  proxy.policy = ({ operation }) => (operation === 'GetItem' ? 'throttle' : undefined);
  const error = jest.spyOn(logger, 'error');
  const { response } = await callSet('throttled-auth', 3_000);
  const logged = error.mock.calls.map(
    ([, attributes]) => (attributes as { error?: Error } | undefined)?.error?.message,
  );
  error.mockRestore();
  expect(response.statusCode).toBe(503);
  expect(response.body.error?.status).toBe('UNAVAILABLE');
  // Ended by the authentication's deadline, while the SDK was still backing off (not timed, as above).
  expect(logged).toEqual(['Authentication did not finish before the deadline']);
}, 20_000);
