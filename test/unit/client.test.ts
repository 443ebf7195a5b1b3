import { describe, expect, test } from '@jest/globals';
import {
  createClient,
  type GetConfigResult,
  type MigrationStatusResult,
  ServiceError,
  type SetConfigResult,
  TransportError,
} from '#client/index.js';
import { buildOpenApiDocument, type OpenApiDocument } from '#shared/api/openapi.js';

interface Sent {
  url: string;
  init: RequestInit;
}

/** A fetch that records the request and answers with the given status and body text. */
const fakeFetch = (status: number, body: unknown) => {
  const sent: Sent[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    sent.push({ url, init });
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status });
  }) as typeof globalThis.fetch;
  return { fetch, sent };
};

const options = { baseUrl: 'http://api.test/', apiKey: 'ak_1', token: 'st_secret' };
const doc = buildOpenApiDocument();
const successExample = (path: string): OpenApiDocument =>
  Object.values(doc.paths[path].post.responses['200'].content['application/json'].examples as object)[0].value;

const caught = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
};

describe('requests', () => {
  test('POSTs {data} as JSON with both credentials to the route under the base URL', async () => {
    const { fetch, sent } = fakeFetch(200, successExample('/v2/notifications/config/set'));
    const client = createClient({ ...options, fetch });
    await client.setConfig({ organizationId: 'acme', userIds: ['alice'], config: { inbox: 'NONE' } });

    expect(sent).toHaveLength(1);
    const [{ url, init }] = sent as [Sent];
    expect(url).toBe('http://api.test/v2/notifications/config/set');
    expect(init.method).toBe('POST');
    expect(init.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-api-key': 'ak_1',
      'x-service-auth-token': 'st_secret',
    });
    expect(JSON.parse(init.body as string)).toEqual({
      data: { organizationId: 'acme', userIds: ['alice'], config: { inbox: 'NONE' } },
    });
  });

  test.each([
    ['setConfig', '/v2/notifications/config/set'],
    ['getConfig', '/v2/notifications/config/get'],
    ['migrateDocument', '/v2/organizations/documents/migrate'],
    ['getMigrationStatus', '/v2/organizations/documents/migrate/status'],
  ] as const)('%s calls %s and returns result.data', async (method, path) => {
    const answer = successExample(path);
    const { fetch, sent } = fakeFetch(200, answer);
    const client = createClient({ ...options, fetch });
    const data = await (client[method] as (data: unknown) => Promise<unknown>)({ organizationId: 'acme' });
    expect(sent[0]?.url).toBe(`http://api.test${path}`);
    expect(data).toEqual(answer.result.data);
  });

  test('results and inputs are typed from the schemas', async () => {
    const { fetch } = fakeFetch(200, successExample('/v2/notifications/config/get'));
    const client = createClient({ ...options, fetch });
    const views: GetConfigResult = await client.getConfig({ organizationId: 'acme', userId: 'alice' });
    expect(views[0]?.effective.inbox).toBe('MINE');
    // Compile-time checks: ts-jest fails the suite when an expected error is missing.
    // @ts-expect-error an unknown channel value is not a valid input
    void (() => client.setConfig({ organizationId: 'acme', userIds: ['a'], config: { inbox: 'SOME' } }));
    // @ts-expect-error migrate needs newDocumentId
    void (() => client.migrateDocument({ organizationId: 'acme', documentId: 'd' }));
    const typed = (result: SetConfigResult, status: MigrationStatusResult) => [
      result.alice?.scope satisfies 'document' | 'organization' | undefined,
      status.status satisfies 'pending' | 'in_progress' | 'completed' | 'failed',
    ];
    expect(typed).toBeInstanceOf(Function);
  });
});

describe('errors', () => {
  test('an {error} answer is a ServiceError with status, HTTP status, message and details', async () => {
    const details = [{ path: 'data.userIds', message: 'userIds must have at least 1 entry' }];
    const { fetch } = fakeFetch(400, { error: { message: 'data.userIds: …', status: 'INVALID_ARGUMENT', details } });
    const error = await caught(createClient({ ...options, fetch }).setConfig({} as never));
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ status: 'INVALID_ARGUMENT', httpStatus: 400, message: 'data.userIds: …', details });
    expect((error as ServiceError).retryable).toBe(false);
  });

  test.each([
    [404, 'NOT_FOUND', false],
    [409, 'ABORTED', true],
    [503, 'UNAVAILABLE', true],
  ] as const)('%i %s envelope', async (httpStatus, status, retryable) => {
    const { fetch } = fakeFetch(httpStatus, { error: { message: 'm', status } });
    const error = await caught(createClient({ ...options, fetch }).getMigrationStatus({} as never));
    expect(error).toMatchObject({ status, httpStatus, message: 'm', details: undefined, retryable });
  });

  test('an {error} body is an error even with a 2xx code', async () => {
    const { fetch } = fakeFetch(200, { error: { message: 'no', status: 'PERMISSION_DENIED' } });
    await expect(createClient({ ...options, fetch }).getConfig({} as never)).rejects.toMatchObject({
      name: 'ServiceError',
      status: 'PERMISSION_DENIED',
      httpStatus: 200,
    });
  });

  test.each([
    [429, { message: 'Too Many Requests' }, 'RESOURCE_EXHAUSTED', 'Too Many Requests'],
    [500, { message: 'Internal Server Error' }, 'INTERNAL', 'Internal Server Error'],
    [503, '<html>Service Unavailable</html>', 'UNAVAILABLE', 'non-JSON body: <html>Service Unavailable</html>'],
    [502, 'Bad Gateway', 'UNKNOWN', 'HTTP 502 from http://api.test/v2/notifications/config/get'],
  ] as const)(
    "API Gateway's own %i answer maps to a ServiceError by HTTP code",
    async (httpStatus, body, status, message) => {
      const { fetch } = fakeFetch(httpStatus, body);
      const error = (await caught(createClient({ ...options, fetch }).getConfig({} as never))) as ServiceError;
      expect(error).toBeInstanceOf(ServiceError);
      expect(error).toMatchObject({ status, httpStatus });
      expect(error.message).toContain(message);
    },
  );

  test.each([
    ['non-JSON', 'OK', 'is not JSON: OK'],
    ['JSON without {result}', { ok: true }, 'is not a {result} envelope'],
    ['a result that is not a success', { result: { status: 'pending', message: 'x', data: 1 } }, 'envelope'],
  ])('a 2xx answer that is %s is a TransportError', async (_name, body, message) => {
    const { fetch } = fakeFetch(200, body);
    const error = await caught(createClient({ ...options, fetch }).getConfig({} as never));
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ kind: 'invalid-response', httpStatus: 200 });
    expect((error as Error).message).toContain(message);
  });

  test('a network failure is a TransportError with its cause', async () => {
    const cause = new TypeError('fetch failed');
    const fetch = (async () => {
      throw cause;
    }) as typeof globalThis.fetch;
    const error = await caught(createClient({ ...options, fetch }).getConfig({} as never));
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({
      kind: 'network',
      httpStatus: undefined,
      cause,
      message: 'POST http://api.test/v2/notifications/config/get failed: fetch failed',
    });
  });

  test('timeoutMs gives up on a call that hangs', async () => {
    const fetch = ((_url: string, init: RequestInit) =>
      new Promise((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      })) as typeof globalThis.fetch;
    const error = await caught(createClient({ ...options, fetch, timeoutMs: 20 }).getConfig({} as never));
    expect(error).toMatchObject({ name: 'TransportError', kind: 'network' });
    expect((error as Error).message).toMatch(/timed out|aborted/i);
  });
});
