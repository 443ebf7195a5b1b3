import {
  BatchExecuteStatementCommand,
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { beforeAll, beforeEach, describe, expect, jest, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import type { HttpHandler } from '#shared/edge/http-route.js';
import { DEADLINE_MARGIN_MS } from '#shared/edge/http-route.js';
import { logger } from '#shared/platform/logger.js';
import { apiEvent, lambdaContext, parseResponse } from '../support/api-events.js';
import { authHeaders, credentialRecord } from '../support/credentials.js';
import { documentResult } from '../support/results.js';
import { setUnitTestEnv } from '../support/test-env.js';

// The shared middleware, exercised through the config-get handler with DynamoDB mocked.
setUnitTestEnv();
const ddb = mockClient(DynamoDBDocumentClient);
let handler: HttpHandler;
let apiKeyCounter = 0;

beforeAll(async () => {
  ({ handler } = await import('#functions/get-config.js'));
});

let apiKey: string;
beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand).resolves({});
  // A fresh key per test: the authenticator's cache lives as long as the module.
  apiKey = `ak_${++apiKeyCounter}`;
  ddb
    .on(GetCommand, { TableName: 'credentials-table', Key: { apiKey } })
    .resolves({ Item: credentialRecord({ apiKey }) });
  ddb.on(BatchGetCommand).resolves({ Responses: { 'config-table': [] } });
});

const PATH = '/v2/notifications/config/get';
const validData = { organizationId: 'org-1', userId: 'u1' };
const call = async (options: Parameters<typeof apiEvent>[1] = {}) =>
  parseResponse(
    await handler(
      apiEvent(PATH, { headers: authHeaders(apiKey), body: { data: validData }, ...options }),
      lambdaContext(),
    ),
  );

const expectError = (response: Awaited<ReturnType<typeof call>>, httpStatus: number, status: string) => {
  expect(response.statusCode).toBe(httpStatus);
  expect(response.headers['content-type']).toBe('application/json');
  expect(Object.keys(response.body)).toEqual(['error']);
  expect(response.body.error?.status).toBe(status);
  expect(typeof response.body.error?.message).toBe('string');
};

describe('authentication', () => {
  test.each([
    ['no headers', {}],
    ['no token', { 'x-service-api-key': 'ak_1' }],
    ['no api key', { 'x-service-auth-token': 'x' }],
  ])('%s: 401 UNAUTHENTICATED and the store is not asked about the body', async (_name, headers) => {
    const response = await call({ headers, rawBody: 'not json' });
    expectError(response, 401, 'UNAUTHENTICATED');
    expect(ddb).not.toHaveReceivedCommand(BatchGetCommand);
  });

  test('unknown key, wrong token, revoked and expired all answer the same 401', async () => {
    ddb.on(GetCommand, { Key: { apiKey: 'ak_revoked' } }).resolves({
      Item: credentialRecord({ apiKey: 'ak_revoked', revokedAt: '2026-01-02T00:00:00.000Z' }),
    });
    ddb.on(GetCommand, { Key: { apiKey: 'ak_expired' } }).resolves({
      Item: credentialRecord({ apiKey: 'ak_expired', expiresAt: '2020-01-01T00:00:00.000Z' }),
    });
    const responses = [
      await call({ headers: authHeaders('ak_unknown') }),
      await call({ headers: authHeaders(apiKey, 'wrong-token') }),
      await call({ headers: authHeaders('ak_revoked') }),
      await call({ headers: authHeaders('ak_expired') }),
    ];
    for (const response of responses) expectError(response, 401, 'UNAUTHENTICATED');
    expect(new Set(responses.map((r) => r.body.error?.message)).size).toBe(1);
  });

  test('an organization not granted to the credential is 403 PERMISSION_DENIED', async () => {
    const response = await call({ body: { data: { ...validData, organizationId: 'org-2' } } });
    expectError(response, 403, 'PERMISSION_DENIED');
    expect(ddb).not.toHaveReceivedCommand(BatchGetCommand);
  });

  test("a warm function reads the credential once, the organization's policy in its first batched read, then serves both from its caches", async () => {
    // An organization no other test read, so that this module's policy cache does not hold it yet.
    const organizationId = 'org-policy-along';
    ddb
      .on(GetCommand, { TableName: 'credentials-table', Key: { apiKey } })
      .resolves({ Item: credentialRecord({ apiKey, organizationIds: [organizationId] }) });
    const policyItem = {
      pk: `POLICY#${organizationId}`,
      sk: 'POLICY',
      organizationId,
      version: 1,
      policy: { channels: { slack: { value: 'NONE', locked: true } } },
    };
    ddb.on(BatchGetCommand).resolves({ Responses: { 'config-table': [policyItem] } });
    const body = { data: { organizationId, userId: 'u1' } };
    const answers = [await call({ body }), await call({ body }), await call({ body })];
    // The policy applies on every answer, the cached ones too.
    expect(
      answers.map((a) => ((a.body.result?.data ?? []) as { source: { slack: string } }[])[0]?.source.slack),
    ).toEqual(['locked', 'locked', 'locked']);
    expect(ddb.commandCalls(GetCommand).map((c) => c.args[0].input.TableName)).toEqual(['credentials-table']);
    const batches = ddb
      .commandCalls(BatchGetCommand)
      .map((c) => (c.args[0].input.RequestItems?.['config-table']?.Keys ?? []).map((key) => key.pk));
    expect(batches).toHaveLength(3);
    expect(batches[0]).toContain(`POLICY#${organizationId}`);
    expect(batches.slice(1).flat()).not.toContain(`POLICY#${organizationId}`);
  });

  test('the token never reaches the logs', async () => {
    const calls: unknown[] = [];
    const spies = (['info', 'warn', 'error', 'debug'] as const).map((level) =>
      jest.spyOn(logger, level).mockImplementation((...args: unknown[]) => {
        calls.push(args);
      }),
    );
    ddb.on(BatchGetCommand).rejects(new Error('boom'));
    await call();
    await call({ headers: authHeaders(apiKey, 'wrong-token-secret') });
    for (const spy of spies) spy.mockRestore();
    expect(calls.length).toBeGreaterThan(0);
    const logged = JSON.stringify(calls, (_k, v) => (v instanceof Error ? { message: v.message, stack: v.stack } : v));
    expect(logged).not.toContain('st_test-token-value');
    expect(logged).not.toContain('wrong-token-secret');
  });
});

describe('envelope', () => {
  test('success is {result:{status, message, data}} with a JSON content type', async () => {
    const response = await call();
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(Object.keys(response.body)).toEqual(['result']);
    expect(response.body.result?.status).toBe('success');
  });

  test.each([['application/json; charset=utf-8'], ['Application/JSON'], ['APPLICATION/JSON;CHARSET=UTF-8']])(
    'content type %s is accepted',
    async (contentType) => {
      const response = await call({ headers: { ...authHeaders(apiKey), 'content-type': contentType } });
      expect(response.statusCode).toBe(200);
    },
  );

  test('header names are matched case-insensitively', async () => {
    const response = await call({
      headers: {
        'X-Service-Api-Key': apiKey,
        'X-SERVICE-AUTH-TOKEN': 'st_test-token-value',
        'Content-Type': 'application/json',
      },
    });
    expect(response.statusCode).toBe(200);
  });

  test.each([
    ['a wrong content type', { headers: { 'content-type': 'text/plain' } }, 'Content-Type must be application/json.'],
    [
      'a json-like content type',
      { headers: { 'content-type': 'application/vnd.api+json' } },
      'Content-Type must be application/json.',
    ],
    ['a GET', { method: 'GET' }, 'Method GET is not allowed; use POST.'],
    [
      'a compressed body',
      { headers: { 'content-encoding': 'gzip' } },
      'Content-Encoding is not supported: send the body uncompressed.',
    ],
    [
      'any other encoding, named oddly',
      { headers: { 'content-encoding': ' BR, gzip' } },
      'Content-Encoding is not supported: send the body uncompressed.',
    ],
    ['an empty body', { rawBody: '' }, 'Request body must be a JSON object with a single key, data.'],
    [
      'a body after a byte-order mark',
      { rawBody: '\ufeff{"data":{}}' },
      'Request body must be valid JSON: it starts with a byte-order mark (U+FEFF); send it without one.',
    ],
    ['a non-object body', { body: [1, 2] }, 'Request body must be a JSON object with a single key, data.'],
    ['a JSON string body', { body: 'data' }, 'Request body must be a JSON object with a single key, data.'],
    ['a body without data', { body: {} }, 'data is required'],
    ['data that is not an object', { body: { data: 'x' } }, 'data: must be an object'],
    ['an extra top-level key', { body: { data: validData, extra: 1 } }, 'The request body has an unknown key: extra'],
  ])('%s is 400 INVALID_ARGUMENT', async (_name, options, message) => {
    const { headers, ...rest } = options as { headers?: Record<string, string> };
    const response = await call({ ...rest, headers: { ...authHeaders(apiKey), ...headers } });
    expectError(response, 400, 'INVALID_ARGUMENT');
    expect(response.body.error?.message).toBe(message);
    expect(ddb).not.toHaveReceivedCommand(BatchGetCommand);
  });

  test('Content-Encoding identity is the body as it is', async () => {
    const response = await call({ headers: { ...authHeaders(apiKey), 'content-encoding': 'identity' } });
    expect(response.statusCode).toBe(200);
  });

  test('no body and a body of null answer alike, details included', async () => {
    const empty = await call({ rawBody: '', headers: authHeaders(apiKey) });
    const nothing = await call({ rawBody: 'null', headers: authHeaders(apiKey) });
    expectError(empty, 400, 'INVALID_ARGUMENT');
    expect(empty.body).toEqual(nothing.body);
    expect(empty.body.error?.details).toEqual([
      { path: 'body', message: 'Request body must be a JSON object with a single key, data.' },
    ]);
  });

  test('invalid JSON is 400 INVALID_ARGUMENT', async () => {
    const response = await call({ rawBody: '{"data": ' });
    expectError(response, 400, 'INVALID_ARGUMENT');
    expect(response.body.error?.message).toMatch(/valid JSON/);
  });

  test('a prototype-pollution key is refused as invalid JSON', async () => {
    const response = await call({ rawBody: '{"data":{"__proto__":{"x":1},"organizationId":"org-1","userId":"u"}}' });
    expectError(response, 400, 'INVALID_ARGUMENT');
  });

  test('a key sent twice in one object counts once, with its last value, for the credential check as for the route', async () => {
    const granted = await call({
      rawBody: '{"data":{"organizationId":"org-2","organizationId":"org-1","userId":"u1"}}',
    });
    expect(granted.statusCode).toBe(200);
    expect(ddb).toHaveReceivedCommandWith(BatchGetCommand, {
      RequestItems: {
        'config-table': expect.objectContaining({
          Keys: expect.arrayContaining([expect.objectContaining({ pk: expect.stringContaining('org-1') })]),
        }),
      },
    });
    const refused = await call({
      rawBody: '{"data":{"organizationId":"org-1","organizationId":"org-2","userId":"u1"}}',
    });
    expectError(refused, 403, 'PERMISSION_DENIED');
  });

  test('a body over 1 MiB is refused, naming the limit', async () => {
    const response = await call({ rawBody: JSON.stringify({ data: { ...validData, pad: 'x'.repeat(1024 * 1024) } }) });
    expectError(response, 400, 'INVALID_ARGUMENT');
    expect(response.body.error?.message).toContain('1 MiB');
  });

  test('schema errors name the field path and list every issue in details', async () => {
    const response = await call({
      body: { data: { organizationId: '', userId: 'u\u0007', documentIds: ['d', 7], extra: true } },
    });
    expectError(response, 400, 'INVALID_ARGUMENT');
    expect(response.body.error?.message).toMatch(
      /^data\.organizationId: organizationId must not be empty \(and \d+ more issues\)$/,
    );
    expect(response.body.error?.details).toEqual(
      expect.arrayContaining([
        { path: 'data.organizationId', message: 'organizationId must not be empty' },
        { path: 'data.userId', message: 'userId must not contain control characters' },
        { path: 'data.documentIds[1]', message: 'documentId must be a string' },
        { path: 'data', message: 'data has an unknown key: extra' },
      ]),
    );
  });

  test('an unexpected failure is 500 INTERNAL with a request id and no internals, and is logged', async () => {
    const errorSpy = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    ddb.on(BatchGetCommand).rejects(new TypeError('secret internal detail'));
    const context = lambdaContext();
    const response = parseResponse(
      await handler(apiEvent(PATH, { headers: authHeaders(apiKey), body: { data: validData } }), context),
    );
    expectError(response, 500, 'INTERNAL');
    expect(response.body.error?.details).toEqual({ requestId: context.awsRequestId });
    expect(JSON.stringify(response.body)).not.toContain('secret internal detail');
    expect(errorSpy).toHaveBeenCalledWith(
      'Unexpected error',
      expect.objectContaining({ error: expect.any(TypeError) }),
    );
    errorSpy.mockRestore();
  });

  test('a throttled dependency is 503 UNAVAILABLE (safe to retry)', async () => {
    const errorSpy = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    ddb.on(BatchGetCommand).rejects(
      Object.assign(new Error('Rate exceeded'), {
        name: 'ProvisionedThroughputExceededException',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const response = await call();
    expectError(response, 503, 'UNAVAILABLE');
    errorSpy.mockRestore();
  });

  test(`a call that outlives the function answers 503 UNAVAILABLE, ${DEADLINE_MARGIN_MS} ms before the deadline`, async () => {
    // Lambda stops the function at its deadline: the answer must leave time to be sent. The
    // storage call answers 50 ms after the early timeout is due; it must lose that race. (Middy
    // takes setTimeout from node:timers, which Jest's fake timers do not replace: the test
    // relies on timer order, not on how long anything takes.)
    const untilTimeout = 100;
    ddb
      .on(BatchGetCommand)
      .callsFake(
        () =>
          new Promise((resolve) => setTimeout(() => resolve({ Responses: { 'config-table': [] } }), untilTimeout + 50)),
      );
    const context = Object.assign(lambdaContext(), {
      getRemainingTimeInMillis: () => DEADLINE_MARGIN_MS + untilTimeout,
    });
    const response = parseResponse(
      await handler(apiEvent(PATH, { headers: authHeaders(apiKey), body: { data: validData } }), context),
    );
    expectError(response, 503, 'UNAVAILABLE');
  });
});

describe('config set handler', () => {
  let setHandler: HttpHandler;
  beforeAll(async () => {
    ({ handler: setHandler } = await import('#functions/set-config.js'));
  });
  const callSet = async (data: unknown) =>
    parseResponse(
      await setHandler(
        apiEvent('/v2/notifications/config/set', { headers: authHeaders(apiKey), body: { data } }),
        lambdaContext(),
      ),
    );

  test('writes one entry per distinct user and document, and only the channels given', async () => {
    ddb.on(UpdateCommand).resolves({});
    const response = await callSet({
      organizationId: 'org-1',
      userIds: ['u1', 'u2', 'u1'],
      documentIds: ['d1', 'd2'],
      config: { inbox: 'NONE' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.body.result?.message).toBe('User config set successfully.');
    expect(response.body.result?.data).toEqual({
      u1: documentResult('u1', ['d1', 'd2'], 'Config set.'),
      u2: documentResult('u2', ['d1', 'd2'], 'Config set.'),
    });
    // Each of the four entries is one conditional UpdateItem that names `inbox` only; nothing is batched.
    expect(ddb).toHaveReceivedCommandTimes(BatchExecuteStatementCommand, 0);
    const updates = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(updates.map((update) => update.Key)).toEqual([
      { pk: 'DOC#org-1#d1', sk: 'u1' },
      { pk: 'DOC#org-1#d2', sk: 'u1' },
      { pk: 'DOC#org-1#d1', sk: 'u2' },
      { pk: 'DOC#org-1#d2', sk: 'u2' },
    ]);
    for (const update of updates) {
      const names = Object.values(update.ExpressionAttributeNames ?? {});
      expect(names).toContain('inbox');
      expect(names).not.toEqual(expect.arrayContaining(['email']));
      expect(names).not.toEqual(expect.arrayContaining(['slack']));
      expect(Object.values(update.ExpressionAttributeValues ?? {})).toEqual(expect.arrayContaining(['NONE', apiKey]));
      expect(update.ConditionExpression).toBeDefined();
    }
  });

  test('a write that still fails after retries answers 503 with the per-user map', async () => {
    const errorSpy = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    ddb.on(UpdateCommand).resolves({});
    ddb
      .on(UpdateCommand, { Key: { pk: 'ORG#org-1', sk: 'u2' } })
      .rejects(Object.assign(new Error('Throughput exceeded'), { name: 'ProvisionedThroughputExceededException' }));
    const response = await callSet({ organizationId: 'org-1', userIds: ['u1', 'u2'], config: { email: 'ALL' } });
    expect(response.statusCode).toBe(503);
    expect(response.body.error?.status).toBe('UNAVAILABLE');
    expect(response.body.error?.details).toEqual({
      u1: { success: true, userId: 'u1', documentId: null, scope: 'organization', message: 'Config set.' },
      u2: {
        success: false,
        userId: 'u2',
        documentId: null,
        scope: 'organization',
        message: 'Config could not be saved; retry the request.',
      },
    });
    errorSpy.mockRestore();
  });

  // Not under `message`: Powertools drops an attribute named like its own keys.
  test("a 503 is logged as a warning that says why (the error's message, not dropped as a reserved key)", async () => {
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('Throttled'), { name: 'ThrottlingException' }));
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const response = await callSet({ organizationId: 'org-1', userIds: ['u1'], config: { email: 'ALL' } });
    const calls = [...warn.mock.calls];
    warn.mockRestore();
    expect(response.statusCode).toBe(503);
    expect(calls).toEqual([
      [
        'Request failed',
        { status: 'UNAVAILABLE', reason: 'Config could not be saved for 1 of 1 users; the request is safe to retry.' },
      ],
    ]);
  });

  test('a write failure that retrying cannot cure (missing table) is INTERNAL, not 503', async () => {
    const errorSpy = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    ddb.on(UpdateCommand).rejects(
      Object.assign(new Error('Requested resource not found'), {
        name: 'ResourceNotFoundException',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const response = await callSet({ organizationId: 'org-1', userIds: ['u1'], config: { email: 'ALL' } });
    expect(response.statusCode).toBe(500);
    expect(response.body.error?.status).toBe('INTERNAL');
    expect(JSON.stringify(response.body)).not.toContain('Requested resource');
    errorSpy.mockRestore();
  });

  test.each([
    [
      { organizationId: 'org-1', userIds: [], config: { inbox: 'ALL' } },
      'data.userIds: userIds must have at least 1 entry',
    ],
    [
      { organizationId: 'org-1', userIds: Array.from({ length: 1001 }, (_, i) => `u${i}`), config: { inbox: 'ALL' } },
      'data.userIds: userIds must have at most 1000 entries',
    ],
    [
      { organizationId: 'org-1', userIds: ['u'], documentIds: [], config: { inbox: 'ALL' } },
      'data.documentIds: documentIds must have at least 1 entry when present',
    ],
    [
      {
        organizationId: 'org-1',
        userIds: ['u'],
        documentIds: Array.from({ length: 31 }, (_, i) => `d${i}`),
        config: { inbox: 'ALL' },
      },
      'data.documentIds: documentIds must have at most 30 entries',
    ],
    [
      { organizationId: 'org-1', userIds: ['u'], config: {} },
      'data.config: config must set at least one of inbox, email, slack',
    ],
    [
      { organizationId: 'org-1', userIds: ['u'], config: { inbox: 'SOME' } },
      'data.config.inbox: must be one of ALL, MINE, NONE',
    ],
    [{ organizationId: 'org-1', userIds: ['u'], config: { sms: 'ALL' } }, 'data.config has an unknown key: sms'],
    [{ organizationId: 'org-1', userIds: ['u'], config: 'ALL' }, 'data.config: config must be an object'],
    [
      { organizationId: 'org-1', userIds: ['x'.repeat(257)], config: { inbox: 'ALL' } },
      'data.userIds[0]: userId must be at most 256 characters',
    ],
    [
      { organizationId: 'org-1', userIds: ['\ud800'], config: { inbox: 'ALL' } },
      'data.userIds[0]: userId must be well-formed Unicode',
    ],
    [{ userIds: ['u'], config: { inbox: 'ALL' } }, 'data.organizationId is required'],
  ])('invalid request %#: 400 naming the field or limit, nothing written', async (data, message) => {
    const response = await callSet(data);
    expect(response.statusCode).toBe(400);
    expect(response.body.error?.status).toBe('INVALID_ARGUMENT');
    expect(response.body.error?.message).toContain(message);
    expect(ddb).not.toHaveReceivedCommand(UpdateCommand);
  });

  test('an identifier of exactly 256 characters is accepted', async () => {
    ddb.on(UpdateCommand).resolves({});
    const response = await callSet({ organizationId: 'org-1', userIds: ['x'.repeat(256)], config: { slack: 'ALL' } });
    expect(response.statusCode).toBe(200);
  });
});
