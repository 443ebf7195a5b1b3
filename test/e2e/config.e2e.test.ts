import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ensureTables } from '#local/dynamo.js';
import { type Credential, hashToken } from '#shared/auth/credential.js';
import { type CallResult, type LocalService, rawRequest, startLocalService } from '../support/local-service.js';

// Real HTTP requests against the local server (the same handler modules as Lambda, behind the
// API Gateway twin) on a free port, with an in-memory DynamoDB.
const SET = '/v2/notifications/config/set';
const GET = '/v2/notifications/config/get';
const UNAUTHENTICATED = { status: 'UNAUTHENTICATED', message: 'Missing or invalid API key or auth token.' };

let service: LocalService;

const credential = async (overrides: Partial<Credential> & { token: string }) => {
  const { token, ...rest } = overrides;
  const item: Credential = {
    apiKey: `ak_${Math.random().toString(36).slice(2)}`,
    tokenHash: hashToken(token),
    organizationIds: '*',
    createdAt: new Date().toISOString(),
    ...rest,
  };
  await service.doc.send(new PutCommand({ TableName: service.tables.credentials, Item: item }));
  return service.authHeaders(item.apiKey, token);
};

/** Every answer: JSON content type and exactly the envelope's keys. */
const expectEnvelope = (response: CallResult) => {
  expect(response.contentType).toMatch(/^application\/json/);
  expect(response.body).toBeDefined();
  if (response.status === 200) {
    expect(Object.keys(response.body)).toEqual(['result']);
    expect(Object.keys(response.body.result ?? {}).sort()).toEqual(['data', 'message', 'status']);
    expect(response.body.result?.status).toBe('success');
  } else {
    expect(Object.keys(response.body)).toEqual(['error']);
    const keys = Object.keys(response.body.error ?? {});
    expect(keys.filter((k) => !['message', 'status', 'details'].includes(k))).toEqual([]);
    expect(typeof response.body.error?.message).toBe('string');
  }
  // Server to server: no CORS.
  expect(response.headers.get('access-control-allow-origin')).toBeNull();
  return response;
};

const call = async (...args: Parameters<LocalService['call']>) => expectEnvelope(await service.call(...args));

const expectError = (response: CallResult, httpStatus: number, status: string, message?: RegExp | string) => {
  expect({ http: response.status, status: response.body.error?.status }).toEqual({ http: httpStatus, status });
  if (message instanceof RegExp) expect(response.body.error?.message).toMatch(message);
  else if (message !== undefined) expect(response.body.error?.message).toBe(message);
};

const getOne = async (organizationId: string, userId: string, documentIds?: string[]) => {
  const response = await call(GET, { organizationId, userId, ...(documentIds ? { documentIds } : {}) });
  expect(response.status).toBe(200);
  return response.body.result?.data as Record<string, unknown>[];
};

beforeAll(async () => {
  service = await startLocalService();
});
afterAll(async () => {
  await service?.close();
});

describe('config/set and config/get over HTTP', () => {
  test('one document: the per-user result names that document', async () => {
    const response = await call(SET, {
      organizationId: 'acme',
      userIds: ['alice', 'bob'],
      documentIds: ['doc-1'],
      config: { email: 'MINE', slack: 'NONE' },
    });
    expect(response.status).toBe(200);
    expect(response.body.result).toEqual({
      status: 'success',
      message: 'User config set successfully.',
      data: {
        alice: { success: true, userId: 'alice', documentId: 'doc-1', scope: 'document', message: 'Config set.' },
        bob: { success: true, userId: 'bob', documentId: 'doc-1', scope: 'document', message: 'Config set.' },
      },
    });
    const [item] = await getOne('acme', 'bob', ['doc-1']);
    expect(item).toEqual({
      userId: 'bob',
      documentId: 'doc-1',
      scope: 'document',
      config: { email: 'MINE', slack: 'NONE' },
      categories: {},
      effective: { inbox: 'ALL', email: 'MINE', slack: 'NONE' },
      source: { inbox: 'default', email: 'document', slack: 'document' },
    });
  });

  test('several documents: documentId is the first and documentIds lists them all', async () => {
    const response = await call(SET, {
      organizationId: 'multi',
      userIds: ['u1'],
      documentIds: ['d1', 'd2', 'd3'],
      config: { inbox: 'NONE' },
    });
    expect(response.body.result?.data).toEqual({
      u1: {
        success: true,
        userId: 'u1',
        documentId: 'd1',
        documentIds: ['d1', 'd2', 'd3'],
        scope: 'document',
        message: 'Config set.',
      },
    });
    const items = await getOne('multi', 'u1', ['d3', 'd1', 'd2', 'other']);
    expect(items.map((i) => [i.documentId, i.config])).toEqual([
      ['d3', { inbox: 'NONE' }],
      ['d1', { inbox: 'NONE' }],
      ['d2', { inbox: 'NONE' }],
      ['other', {}],
    ]);
  });

  test('organization level: documentId null and scope organization, for set and get', async () => {
    const response = await call(SET, { organizationId: 'orgwide', userIds: ['carol'], config: { inbox: 'MINE' } });
    expect(response.body.result?.data).toEqual({
      carol: { success: true, userId: 'carol', documentId: null, scope: 'organization', message: 'Config set.' },
    });
    expect(await getOne('orgwide', 'carol')).toEqual([
      {
        userId: 'carol',
        documentId: null,
        scope: 'organization',
        config: { inbox: 'MINE' },
        categories: {},
        effective: { inbox: 'MINE', email: 'MINE', slack: 'NONE' },
        source: { inbox: 'organization', email: 'default', slack: 'default' },
      },
    ]);
  });

  test('duplicate user and document ids are collapsed', async () => {
    const response = await call(SET, {
      organizationId: 'dups',
      userIds: ['a', 'b', 'a', 'b', 'a'],
      documentIds: ['d', 'd'],
      config: { slack: 'ALL' },
    });
    const data = response.body.result?.data as Record<string, Record<string, unknown>>;
    expect(Object.keys(data)).toEqual(['a', 'b']);
    expect(data.a).toEqual({ success: true, userId: 'a', documentId: 'd', scope: 'document', message: 'Config set.' });
    expect(await getOne('dups', 'a', ['d', 'd'])).toHaveLength(1);
  });

  test('a channel left out keeps its stored value', async () => {
    await call(SET, { organizationId: 'keep', userIds: ['u'], documentIds: ['d'], config: { inbox: 'NONE' } });
    await call(SET, { organizationId: 'keep', userIds: ['u'], documentIds: ['d'], config: { email: 'ALL' } });
    await call(SET, { organizationId: 'keep', userIds: ['u'], documentIds: ['d'], config: { slack: 'MINE' } });
    const [item] = await getOne('keep', 'u', ['d']);
    expect(item?.config).toEqual({ inbox: 'NONE', email: 'ALL', slack: 'MINE' });
  });

  test('concurrent requests setting different channels of one entry both take effect', async () => {
    const set = (config: Record<string, string>) =>
      call(SET, { organizationId: 'race', userIds: ['u'], documentIds: ['d'], config });
    const answers = await Promise.all([set({ inbox: 'MINE' }), set({ email: 'NONE' }), set({ slack: 'ALL' })]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const [item] = await getOne('race', 'u', ['d']);
    expect(item?.config).toEqual({ inbox: 'MINE', email: 'NONE', slack: 'ALL' });
  });

  test('effective config layers document, then organization, then defaults, and says where each came from', async () => {
    await call(SET, { organizationId: 'layers', userIds: ['u'], config: { inbox: 'NONE', email: 'ALL' } });
    await call(SET, { organizationId: 'layers', userIds: ['u'], documentIds: ['d'], config: { email: 'NONE' } });
    const [withDocument, withoutDocument] = await getOne('layers', 'u', ['d', 'untouched']);
    expect(withDocument).toMatchObject({
      config: { email: 'NONE' },
      effective: { inbox: 'NONE', email: 'NONE', slack: 'NONE' },
      source: { inbox: 'organization', email: 'document', slack: 'default' },
    });
    expect(withoutDocument).toMatchObject({
      documentId: 'untouched',
      scope: 'document',
      config: {},
      effective: { inbox: 'NONE', email: 'ALL', slack: 'NONE' },
      source: { inbox: 'organization', email: 'organization', slack: 'default' },
    });
  });

  test('repeating a set gives the same answer and the same stored state', async () => {
    const request = { organizationId: 'again', userIds: ['u', 'v'], documentIds: ['d'], config: { email: 'NONE' } };
    const first = await call(SET, request);
    const before = await getOne('again', 'u', ['d']);
    const second = await call(SET, request);
    expect(second.body).toEqual(first.body);
    expect(await getOne('again', 'u', ['d'])).toEqual(before);
  });

  test('identifiers with #, /, %, spaces and Unicode round-trip exactly and never share storage', async () => {
    const organizationId = 'org #1/ü 100% 🎉';
    const userId = 'user/1#a b%2F 名前';
    const documents = ['doc#1', 'doc%231', 'doc/1 ✓', 'doc%2F1 ✓', ' lead and trail '];
    for (const [index, documentId] of documents.entries()) {
      const config = { inbox: (['ALL', 'MINE', 'NONE'] as const)[index % 3] };
      const response = await call(SET, { organizationId, userIds: [userId], documentIds: [documentId], config });
      expect(response.body.result?.data).toEqual({
        [userId]: { success: true, userId, documentId, scope: 'document', message: 'Config set.' },
      });
    }
    const items = await getOne(organizationId, userId, documents);
    expect(items.map((i) => [i.userId, i.documentId, i.config])).toEqual(
      documents.map((documentId, index) => [userId, documentId, { inbox: ['ALL', 'MINE', 'NONE'][index % 3] }]),
    );
    // A look-alike organization sees nothing of it.
    expect((await getOne('org %231/ü 100% 🎉', userId, ['doc#1']))[0]?.config).toEqual({});
  });
});

describe('envelope errors', () => {
  const valid = { organizationId: 'acme', userIds: ['alice'], config: { inbox: 'ALL' } };
  const body = (text: string) => ({ rawBody: text });

  test.each([
    ['an empty body', ''],
    ['invalid JSON', '{"data":'],
    ['a JSON array', '[]'],
    ['a JSON string', '"data"'],
    ['JSON null', 'null'],
    ['no data key', '{}'],
    ['an extra top-level key', JSON.stringify({ data: valid, extra: 1 })],
    ['data that is not an object', '{"data":"x"}'],
  ])('%s: 400 INVALID_ARGUMENT', async (_, raw) => {
    const response = await call(SET, undefined, body(raw));
    expectError(response, 400, 'INVALID_ARGUMENT');
  });

  test.each([
    ['text/plain', 400],
    ['application/x-www-form-urlencoded', 400],
    ['application/json; charset=utf-8', 200],
    ['APPLICATION/JSON', 200],
    ['Application/Json;Charset=UTF-8', 200],
  ])('content type %s answers %i', async (contentType, httpStatus) => {
    const response = await call(SET, valid, { headers: { 'content-type': contentType } });
    expect(response.status).toBe(httpStatus);
    if (httpStatus === 400) expectError(response, 400, 'INVALID_ARGUMENT', /Content-Type must be application\/json/);
  });

  test('no content type: 400 INVALID_ARGUMENT', async () => {
    const response = await rawRequest(`${service.baseUrl}${SET}`, {
      headers: Object.entries(service.authHeaders()),
      body: JSON.stringify({ data: valid }),
    });
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/json');
    expect(JSON.parse(response.text)).toEqual({
      error: { status: 'INVALID_ARGUMENT', message: 'Content-Type must be application/json.' },
    });
  });

  test.each(['GET', 'PUT', 'DELETE'])('method %s: 400 INVALID_ARGUMENT naming POST', async (method) => {
    const response = await call(GET, { organizationId: 'acme', userId: 'u' }, { method });
    expectError(response, 400, 'INVALID_ARGUMENT', /POST/);
  });

  test.each(['/', '/v2/notifications/config', '/v2/notifications/config/set/', '/V2/notifications/config/set'])(
    'unknown route %s: 404 NOT_FOUND in the envelope',
    async (path) => {
      const response = await call(path, valid);
      expectError(response, 404, 'NOT_FOUND');
      const unauthenticated = await call(path, valid, { headers: { 'x-service-api-key': undefined } });
      expectError(unauthenticated, 404, 'NOT_FOUND');
    },
  );

  test('a schema error names the field path in message and lists every issue in details', async () => {
    const response = await call(SET, {
      organizationId: '',
      userIds: ['ok', 5],
      config: { inbox: 'SOMETIMES', push: 'ALL' },
    });
    expectError(response, 400, 'INVALID_ARGUMENT', /^data\.organizationId/);
    const details = response.body.error?.details as { path: string; message: string }[];
    expect(details.map((d) => d.path).sort()).toEqual(
      ['data.config', 'data.config.inbox', 'data.organizationId', 'data.userIds[1]'].sort(),
    );
    for (const detail of details) expect(detail.message).toEqual(expect.any(String));
  });

  test('a missing required field is named', async () => {
    const response = await call(GET, { organizationId: 'acme' });
    expectError(response, 400, 'INVALID_ARGUMENT', /data\.userId is required/);
  });

  test.each([
    ['config with no channel', { ...valid, config: {} }, /config must set at least one/],
    ['an unknown channel value', { ...valid, config: { inbox: 'some' } }, /data\.config\.inbox/],
    // A singular for a plural, as config/get and config/resolve name them: the error says which.
    [
      'an unknown key in data',
      { ...valid, userId: 'x' },
      /^data has an unknown key: userId \(did you mean userIds\?\)$/,
    ],
    [
      'unknown keys in data',
      { ...valid, documentId: 'd', Category: 'c', extra: 1 },
      /^data has unknown keys: documentId, Category, extra \(did you mean documentIds, category\?\)$/,
    ],
  ])('%s: 400 INVALID_ARGUMENT', async (_, data, message) => {
    expectError(await call(SET, data), 400, 'INVALID_ARGUMENT', message);
  });
});

describe('limits', () => {
  const base = { organizationId: 'limits', userIds: ['u'], config: { inbox: 'ALL' } };
  const long = 'x'.repeat(257);

  test.each([
    ['1001 userIds', { ...base, userIds: Array.from({ length: 1001 }, (_, i) => `u${i}`) }, /userIds.*1000/],
    ['31 documentIds', { ...base, documentIds: Array.from({ length: 31 }, (_, i) => `d${i}`) }, /documentIds.*30/],
    ['empty documentIds', { ...base, documentIds: [] }, /documentIds must have at least 1 entry when present/],
    ['empty userIds', { ...base, userIds: [] }, /userIds must have at least 1/],
    ['a 257-character organizationId', { ...base, organizationId: long }, /organizationId must be at most 256/],
    ['a 257-character userId', { ...base, userIds: ['ok', long] }, /data\.userIds\[1\].*at most 256/],
    ['a 257-character documentId', { ...base, documentIds: [long] }, /documentId must be at most 256/],
    ['a control character', { ...base, userIds: ['tab\there'] }, /control characters/],
    ['a NUL in a documentId', { ...base, documentIds: ['a\u0000b'] }, /control characters/],
    ['an empty userId', { ...base, userIds: [''] }, /userId must not be empty/],
  ])('%s: 400 INVALID_ARGUMENT naming the limit', async (_, data, message) => {
    expectError(await call(SET, data), 400, 'INVALID_ARGUMENT', message);
  });

  test('exactly at the limits is accepted: 1000 users, 30 documents of 256 characters', async () => {
    const userIds = Array.from({ length: 1000 }, (_, i) => `user-${i}`);
    const ok = await call(SET, { ...base, userIds, config: { email: 'NONE' } });
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.body.result?.data as object)).toHaveLength(1000);
    const documentIds = Array.from({ length: 30 }, (_, i) => `${i}`.padEnd(256, 'd'));
    const response = await call(GET, { organizationId: 'limits', userId: 'user-999', documentIds });
    expect(response.status).toBe(200);
    expect(response.body.result?.data).toHaveLength(30);
  });

  test('a body over 1 MiB: 400 INVALID_ARGUMENT naming the limit; without auth still 401 first', async () => {
    const raw = JSON.stringify({ data: { ...base, padding: 'p'.repeat(1024 * 1024) } });
    expectError(await call(SET, undefined, { rawBody: raw }), 400, 'INVALID_ARGUMENT', /1 MiB/);
    const unauthenticated = await call(SET, undefined, {
      rawBody: raw,
      headers: { 'x-service-auth-token': undefined },
    });
    expectError(unauthenticated, 401, 'UNAUTHENTICATED');
  });
});

describe('authentication and authorization', () => {
  const data = { organizationId: 'acme', userIds: ['u'], config: { inbox: 'ALL' } };

  test('missing headers, unknown key, wrong token, revoked or expired: 401 with one message', async () => {
    const revoked = await credential({ token: 'st_revoked', revokedAt: new Date(Date.now() - 1000).toISOString() });
    const expired = await credential({ token: 'st_expired', expiresAt: new Date(Date.now() - 1000).toISOString() });
    const cases: Record<string, Record<string, string | undefined>> = {
      'no headers': { 'x-service-api-key': undefined, 'x-service-auth-token': undefined },
      'no token': { 'x-service-auth-token': undefined },
      'no api key': { 'x-service-api-key': undefined },
      'empty token': { 'x-service-auth-token': '' },
      'wrong token': { 'x-service-auth-token': `${service.token}x` },
      'unknown key': { 'x-service-api-key': 'ak_unknown' },
      'another key with this token': { 'x-service-api-key': revoked['x-service-api-key'] },
      revoked,
      expired,
    };
    for (const [name, headers] of Object.entries(cases)) {
      const response = await call(SET, data, { headers });
      expect({ name, http: response.status, error: response.body.error }).toEqual({
        name,
        http: 401,
        error: UNAUTHENTICATED,
      });
    }
  });

  test('header names are matched case-insensitively', async () => {
    const response = await call(SET, data, {
      headers: {
        'x-service-api-key': undefined,
        'x-service-auth-token': undefined,
        'X-Service-Api-Key': service.apiKey,
        'X-SERVICE-AUTH-TOKEN': service.token,
      },
    });
    expect(response.status).toBe(200);
  });

  test('a credential works for its organizations only: 403 PERMISSION_DENIED for another one', async () => {
    const headers = await credential({ token: 'st_scoped', organizationIds: ['org-a', 'org-b'] });
    expect((await call(SET, { ...data, organizationId: 'org-a' }, { headers })).status).toBe(200);
    expect((await call(GET, { organizationId: 'org-b', userId: 'u' }, { headers })).status).toBe(200);
    const denied = await call(SET, { ...data, organizationId: 'org-c' }, { headers });
    expectError(denied, 403, 'PERMISSION_DENIED', /org-c/);
    expectError(await call(GET, { organizationId: 'org-c', userId: 'u' }, { headers }), 403, 'PERMISSION_DENIED');
  });

  test('a credential with a future expiry works', async () => {
    const headers = await credential({ token: 'st_future', expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await call(GET, { organizationId: 'acme', userId: 'u' }, { headers })).status).toBe(200);
  });

  test.each([
    ['an empty body', { rawBody: '' }],
    ['invalid JSON', { rawBody: '{' }],
    ['a wrong content type', { headers: { 'content-type': 'text/plain' } }],
    ['a GET', { method: 'GET' }],
    ['a schema error', { rawBody: JSON.stringify({ data: { organizationId: 5 } }) }],
  ])('auth is checked before the body: %s without credentials answers 401', async (_, options) => {
    const response = await call(SET, data, {
      ...options,
      headers: { ...(options as { headers?: Record<string, string> }).headers, 'x-service-api-key': undefined },
    });
    expect({ http: response.status, error: response.body.error }).toEqual({ http: 401, error: UNAUTHENTICATED });
  });
});

describe('unexpected failures', () => {
  // 503 UNAVAILABLE with the per-user map (writes that keep being throttled) is proven over
  // HTTP with a fault-injecting proxy in test/reliability/faults-handlers.test.ts.
  test('a write failure retrying cannot cure (the table is gone) is INTERNAL, not "safe to retry"', async () => {
    await service.dynamo.send(new DeleteTableCommand({ TableName: service.tables.config }));
    try {
      const response = await call(SET, {
        organizationId: 'acme',
        userIds: ['alice', 'bob'],
        documentIds: ['doc-1'],
        config: { inbox: 'NONE' },
      });
      expectError(response, 500, 'INTERNAL', 'Internal error.');
      expect(Object.keys(response.body.error?.details as object)).toEqual(['requestId']);
      expect(response.text).not.toMatch(/ResourceNotFound|non-existent table/i);
    } finally {
      await ensureTables(service.dynamo);
    }
  });

  test('INTERNAL: generic message, a request id in details, no internals', async () => {
    // Provoke a bug-like failure: the config table disappears under the running service.
    await service.dynamo.send(new DeleteTableCommand({ TableName: service.tables.config }));
    try {
      const response = await call(GET, { organizationId: 'acme', userId: 'alice', documentIds: ['doc-1'] });
      expectError(response, 500, 'INTERNAL', 'Internal error.');
      const details = response.body.error?.details as Record<string, unknown>;
      expect(Object.keys(details)).toEqual(['requestId']);
      expect(details.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.text).not.toMatch(/ResourceNotFound|table|stack|at \w+ \(|dynamo/i);
    } finally {
      await ensureTables(service.dynamo);
    }
  });
});
