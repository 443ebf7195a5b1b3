import { BatchGetCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, beforeEach, describe, expect, jest, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { toApiGatewayEvent } from '#local/api-gateway-payload.js';
import { ensureLocalCredential } from '#local/local-credential.js';
import { UNAUTHENTICATED_MESSAGE } from '#shared/api/errors.js';
import { identifier, MAX_IDENTIFIER_LENGTH } from '#shared/api/identifiers.js';
import { hashToken, newApiKey, newToken } from '#shared/auth/credential.js';
import type { HttpHandler } from '#shared/edge/http-route.js';
import { logger } from '#shared/platform/logger.js';
import { apiEvent, lambdaContext, parseResponse } from '../support/api-events.js';
import { authHeaders, credentialRecord } from '../support/credentials.js';
import { setUnitTestEnv } from '../support/test-env.js';

// What a caller without a credential, or with a hostile body, can send: headers of any
// length and bytes, content types with odd spacing, bytes that are not UTF-8, identifiers at
// and past their limit in UTF-16 code units.
setUnitTestEnv();
const ddb = mockClient(DynamoDBDocumentClient);
let handler: HttpHandler;
const PATH = '/v2/notifications/config/get';
const validData = { organizationId: 'org-1', userId: 'u1' };

beforeAll(async () => {
  ({ handler } = await import('#functions/get-config.js'));
});
beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand).resolves({});
  ddb.on(GetCommand, { TableName: 'credentials-table', Key: { apiKey: 'ak_test' } }).resolves({
    Item: credentialRecord(),
  });
  ddb.on(BatchGetCommand).resolves({ Responses: { 'config-table': [] } });
});

const call = async (options: Parameters<typeof apiEvent>[1] = {}) =>
  parseResponse(
    await handler(apiEvent(PATH, { headers: authHeaders(), body: { data: validData }, ...options }), lambdaContext()),
  );

/** Calls with the logger's warn and error recorded (and silenced). */
const withLogs = async <T>(work: () => Promise<T>) => {
  const errors = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  const warnings = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  try {
    const result = await work();
    return { result, errors: errors.mock.calls.length, warnings: warnings.mock.calls.length };
  } finally {
    errors.mockRestore();
    warnings.mockRestore();
  }
};

const UNAUTHENTICATED = { error: { status: 'UNAUTHENTICATED', message: UNAUTHENTICATED_MESSAGE } };

describe('credential headers of any length and content', () => {
  // Values no credential can have: DynamoDB refuses a key over 2,048 bytes (ValidationException,
  // which used to answer 500 and log an ERROR); the others are bytes no created key contains.
  const hostile: [string, string][] = [
    ['a key over DynamoDB key limit', `ak_${'x'.repeat(3000)}`],
    ['a key of 100 KB', 'k'.repeat(100_000)],
    ['a key with control characters', 'ak_\u0000\u0007\r\n'],
    ['a key with non-ASCII text', 'ak_ключ_😀'],
    ['a key with a lone surrogate', 'ak_\ud800'],
    ['a key with spaces', 'ak test'],
    ['a key of latin-1 bytes as Node reads them', 'ak_\u00c3\u00a9'],
  ];

  test.each(hostile)(
    '%s: 401 with the unknown-key message, no lookup, nothing logged as an error',
    async (_why, key) => {
      const { result, errors } = await withLogs(() => call({ headers: authHeaders(key) }));
      expect({ status: result.statusCode, body: result.body }).toEqual({ status: 401, body: UNAUTHENTICATED });
      expect(ddb).not.toHaveReceivedCommand(GetCommand);
      expect(errors).toBe(0);
    },
  );

  test.each([
    ['a token of 100 KB', 't'.repeat(100_000)],
    ['a token with control characters', 'st_\u0000\n'],
    ['a token with non-ASCII text', 'st_ключ'],
  ])('%s: 401 with the same message, no lookup', async (_why, token) => {
    // A key this function has not cached yet: only the token can spare the lookup.
    const { result, errors } = await withLogs(() =>
      call({ headers: authHeaders(`ak_${token.length}_uncached`, token) }),
    );
    expect({ status: result.statusCode, body: result.body }).toEqual({ status: 401, body: UNAUTHENTICATED });
    expect(ddb).not.toHaveReceivedCommand(GetCommand);
    expect(errors).toBe(0);
  });

  test('the unknown-key answer is the same message: no oracle between malformed and unknown', async () => {
    const unknown = await call({ headers: authHeaders('ak_nobody') });
    const malformed = await call({ headers: authHeaders('x'.repeat(5000)) });
    expect(malformed.body).toEqual(unknown.body);
    expect(unknown.body).toEqual(UNAUTHENTICATED);
  });

  test('generated keys and tokens are well-formed: a created credential still authenticates', async () => {
    const apiKey = newApiKey();
    const token = newToken();
    ddb
      .on(GetCommand, { TableName: 'credentials-table', Key: { apiKey } })
      .resolves({ Item: credentialRecord({ apiKey, tokenHash: hashToken(token) }) });
    const response = await call({ headers: authHeaders(apiKey, token) });
    expect(response.statusCode).toBe(200);
  });
  test.each([
    ['a key with a space', { apiKey: 'my key', token: 'st_ok' }],
    ['a key over the length cap', { apiKey: 'k'.repeat(129), token: 'st_ok' }],
    ['a token with non-ASCII text', { apiKey: 'ak_ok', token: 'st_ключ' }],
  ])('a fixed local credential with %s is refused at start, not left to fail every call', async (_why, pair) => {
    const client = { send: jest.fn() } as unknown as DynamoDBDocumentClient;
    await expect(ensureLocalCredential({ client, tableName: 'credentials', ...pair })).rejects.toThrow(
      /LOCAL_API_KEY must be 1 to 128 and LOCAL_AUTH_TOKEN 1 to 256 visible ASCII characters/,
    );
    expect(client.send).not.toHaveBeenCalled();
  });
});

describe('content type', () => {
  test.each([
    'application/json ; charset=utf-8',
    'application/json;charset=utf-8',
    ' Application/Json  ;  Charset=UTF-8',
    'APPLICATION/JSON; charset="utf-8"; foo=bar',
  ])('%s is accepted', async (contentType) => {
    const response = await call({ headers: { ...authHeaders(), 'content-type': contentType } });
    expect(response.statusCode).toBe(200);
  });

  test.each(['application/jsonx', 'application/vnd.api+json', 'text/json', 'application/json-patch+json'])(
    '%s is refused by the one check, naming the content type',
    async (contentType) => {
      const response = await call({ headers: { ...authHeaders(), 'content-type': contentType } });
      expect(response.statusCode).toBe(400);
      expect(response.body.error).toEqual({
        status: 'INVALID_ARGUMENT',
        message: 'Content-Type must be application/json.',
      });
    },
  );
});

describe('body bytes', () => {
  const base64Event = (bytes: Buffer) => ({
    ...apiEvent(PATH, { headers: authHeaders() }),
    body: bytes.toString('base64'),
    isBase64Encoded: true,
  });
  const callBytes = async (bytes: Buffer) => parseResponse(await handler(base64Event(bytes), lambdaContext()));

  test.each([
    ['a byte that starts no UTF-8 sequence', Buffer.from([0xff])],
    ['a truncated sequence', Buffer.from([0xc3])],
    ['an encoded surrogate', Buffer.from([0xed, 0xa0, 0x80])],
    ['an overlong encoding', Buffer.from([0xc0, 0xaf])],
  ])('%s inside an identifier is 400 INVALID_ARGUMENT, nothing read', async (_why, bad) => {
    const bytes = Buffer.concat([
      Buffer.from('{"data":{"organizationId":"org-1","userId":"u'),
      bad,
      Buffer.from('"}}'),
    ]);
    const response = await callBytes(bytes);
    expect(response.statusCode).toBe(400);
    expect(response.body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'Request body must be valid UTF-8.' });
    expect(ddb).not.toHaveReceivedCommand(BatchGetCommand);
  });

  test('a base64 body that is valid UTF-8 is read as the same text', async () => {
    const response = await callBytes(Buffer.from(JSON.stringify({ data: { ...validData, userId: 'ü-😀' } })));
    expect(response.statusCode).toBe(200);
    expect(response.body.result?.data).toMatchObject([{ userId: 'ü-😀' }]);
  });

  test('the 1 MiB limit counts the decoded bytes', async () => {
    const response = await callBytes(Buffer.from(JSON.stringify({ data: { ...validData, pad: 'x'.repeat(1 << 20) } })));
    expect(response.statusCode).toBe(400);
    expect(response.body.error?.message).toContain('1 MiB');
  });

  test('the local API Gateway twin passes bytes that are not UTF-8 base64-encoded, never replaced', () => {
    const facts = {
      method: 'POST',
      url: PATH,
      rawHeaders: [],
      sourceIp: '127.0.0.1',
      httpVersion: '1.1',
      routeKey: '$default',
    };
    const bad = Buffer.from([0x7b, 0xff, 0x7d]);
    expect(toApiGatewayEvent({ ...facts, body: bad })).toMatchObject({
      body: bad.toString('base64'),
      isBase64Encoded: true,
    });
    const text = Buffer.from('{"x":"ü😀"}');
    expect(toApiGatewayEvent({ ...facts, body: text })).toMatchObject({ body: '{"x":"ü😀"}', isBase64Encoded: false });
    expect(toApiGatewayEvent({ ...facts, body: Buffer.alloc(0) }).body).toBeUndefined();
  });
});

describe('identifier length in UTF-16 code units', () => {
  const schema = identifier('userId');
  const emoji = '😀'; // one code point, two UTF-16 code units
  const tooLong = `userId must be at most ${MAX_IDENTIFIER_LENGTH} characters (UTF-16 code units)`;
  const issues = (value: string) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
  };

  test.each([
    ['256 ASCII characters', 'x'.repeat(256)],
    ['128 emoji (256 code units)', emoji.repeat(128)],
    ['127 emoji and 2 ASCII characters', `${emoji.repeat(127)}ab`],
  ])('%s: accepted', (_name, value) => {
    expect(value.length).toBe(256);
    expect(issues(value)).toEqual([]);
  });

  test.each([
    ['257 ASCII characters', 'x'.repeat(257)],
    ['129 emoji (129 code points, 258 code units)', emoji.repeat(129)],
    ['128 emoji and 1 ASCII character', `${emoji.repeat(128)}a`],
  ])('%s: refused with one issue naming the limit', (_name, value) => {
    expect(issues(value)).toEqual([tooLong]);
  });

  test.each([
    ['a lone high surrogate', '\ud800'],
    ['a lone low surrogate at the limit', `${'x'.repeat(255)}\udc00`],
    ['a surrogate pair reversed', 'a\ude00\ud83d'],
  ])('%s: refused as not well-formed', (_name, value) => {
    expect(issues(value)).toEqual(['userId must be well-formed Unicode']);
  });

  test('through the handler, 129 emoji are refused with the field named', async () => {
    const response = await call({ body: { data: { ...validData, userId: emoji.repeat(129) } } });
    expect(response.statusCode).toBe(400);
    expect(response.body.error?.message).toBe(`data.userId: ${tooLong}`);
    expect(ddb).not.toHaveReceivedCommand(BatchGetCommand);
  });
});
