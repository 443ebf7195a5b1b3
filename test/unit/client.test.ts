import { describe, expect, test } from '@jest/globals';
import {
  createClient,
  type GetConfigResult,
  type MigrationStatusResult,
  type OperationId,
  type OperationInput,
  type OperationResult,
  ServiceError,
  type SetConfigResult,
  TransportError,
  WaitTimeoutError,
} from '#client/index.js';
import { backoffDelay, DEFAULT_RETRY } from '#client/retry.js';
import { buildOpenApiDocument, type OpenApiDocument } from '#tools/openapi/document.js';
import type {
  OperationInput as SchemaInput,
  OperationId as SchemaOperationId,
  OperationResult as SchemaResult,
} from '#tools/openapi/operations.js';

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
    // A conflict (another migration, an out-of-date expectedVersion): repeating it as it is cannot help.
    [409, 'ABORTED', false],
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

  test("a network failure's message names the cause's code when fetch gives one (ECONNREFUSED: nothing listens)", async () => {
    const cause = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
    });
    const fetch = (async () => {
      throw cause;
    }) as typeof globalThis.fetch;
    const error = await caught(createClient({ ...options, fetch }).getConfig({} as never));
    expect((error as Error).message).toBe(
      'POST http://api.test/v2/notifications/config/get failed: fetch failed (ECONNREFUSED)',
    );
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

// The client's types are generated plain TypeScript (so that the published package needs no zod):
// they must be exactly the types zod infers from the schemas, for every operation.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type SameTypes = {
  [Id in SchemaOperationId]: Id extends OperationId
    ? [Equal<OperationInput<Id>, SchemaInput<Id>>, Equal<OperationResult<Id>, SchemaResult<Id>>]
    : 'missing from the client';
};
test('the generated input and result types are the ones zod infers, for every operation', () => {
  // Checked by `npm run typecheck` (ts-jest only transpiles): one `false` anywhere fails it.
  const same: SameTypes[SchemaOperationId] extends [true, true] ? true : false = true;
  expect(same).toBe(true);
});

/** A fetch that answers from a list, one answer (status and body, or an error to throw) per call. */
const scriptedFetch = (answers: ({ status: number; body: unknown } | Error)[]) => {
  const urls: string[] = [];
  const keys: (string | undefined)[] = [];
  const fetch = (async (url: string, init?: RequestInit) => {
    urls.push(url);
    keys.push((init?.headers as Record<string, string> | undefined)?.['idempotency-key']);
    const answer = answers[Math.min(urls.length, answers.length) - 1];
    if (answer instanceof Error) throw answer;
    if (!answer) throw new Error('no answer scripted');
    return new Response(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body), {
      status: answer.status,
    });
  }) as typeof globalThis.fetch;
  return { fetch, urls, keys };
};

const success = (data: unknown) => ({ status: 200, body: { result: { status: 'success', message: 'ok', data } } });
const unavailable = { status: 503, body: { error: { message: 'Try again.', status: 'UNAVAILABLE' } } };
const fast = { attempts: 4, baseDelayMs: 1, maxDelayMs: 2 };

describe('retries', () => {
  test.each([
    ['503 UNAVAILABLE', unavailable],
    ["API Gateway's 503", { status: 503, body: { message: 'Service Unavailable' } }],
    [
      '429 RESOURCE_EXHAUSTED',
      { status: 429, body: { error: { message: 'Slow down.', status: 'RESOURCE_EXHAUSTED' } } },
    ],
    ["API Gateway's 429", { status: 429, body: { message: 'Too Many Requests' } }],
    ['a network failure', new TypeError('fetch failed')],
  ])('%s is retried until an answer comes', async (_name, failure) => {
    const { fetch, urls } = scriptedFetch([failure, failure, success([])]);
    const client = createClient({ ...options, fetch, retry: fast });
    expect(await client.getConfig({ organizationId: 'acme', userId: 'alice' })).toEqual([]);
    expect(urls).toHaveLength(3);
  });

  test.each([
    [400, 'INVALID_ARGUMENT'],
    [401, 'UNAUTHENTICATED'],
    [403, 'PERMISSION_DENIED'],
    [404, 'NOT_FOUND'],
    [409, 'ABORTED'],
    [500, 'INTERNAL'],
  ])('%i %s is never retried', async (httpStatus, status) => {
    const { fetch, urls } = scriptedFetch([{ status: httpStatus, body: { error: { message: 'no', status } } }]);
    const client = createClient({ ...options, fetch, retry: fast });
    await expect(client.getConfig({ organizationId: 'acme', userId: 'alice' })).rejects.toMatchObject({ status });
    expect(urls).toHaveLength(1);
  });

  const migrate = { organizationId: 'acme', documentId: 'doc-1', newDocumentId: 'doc-2' };
  const refused = Object.assign(new TypeError('fetch failed'), {
    cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
  });

  test.each([
    ['a network failure (an answer lost)', new TypeError('fetch failed')],
    [
      "API Gateway's own 503 (the function timed out, perhaps after its work)",
      { status: 503, body: { message: 'Service Unavailable' } },
    ],
    ["the service's own 503 (its deadline may have come after the write)", unavailable],
  ])(
    '%s is not resent for a call whose repeat does something else (policy/set with expectedVersion)',
    async (_name, failure) => {
      const policy = { organizationId: 'acme', policy: { channels: { email: { value: 'NONE' as const } } } };
      const conditional = scriptedFetch([failure, success({ version: 2 })]);
      await expect(
        createClient({ ...options, fetch: conditional.fetch, retry: fast }).setPolicy({
          ...policy,
          expectedVersion: 1,
        }),
      ).rejects.toBeInstanceOf(Error);
      expect(conditional.urls).toHaveLength(1);

      // Without expectedVersion a policy/set is a plain replacement, and a repeatable write is resent.
      const unconditional = scriptedFetch([failure, success({ version: 2 })]);
      await createClient({ ...options, fetch: unconditional.fetch, retry: fast }).setPolicy(policy);
      expect(unconditional.urls).toHaveLength(2);
      const set = scriptedFetch([failure, success({})]);
      await createClient({ ...options, fetch: set.fetch, retry: fast }).setConfig({
        organizationId: 'acme',
        userIds: ['u'],
        config: { email: 'NONE' },
      });
      expect(set.urls).toHaveLength(2);
    },
  );

  test.each([
    ['a network failure (an answer lost)', new TypeError('fetch failed')],
    ["the service's own 503 (its deadline may have come after the write)", unavailable],
  ])('%s of migrate or erase is resent with the Idempotency-Key of the first attempt', async (_name, failure) => {
    const migration = scriptedFetch([failure, success({ migrationId: 'm-2' })]);
    const client = createClient({ ...options, fetch: migration.fetch, retry: fast });
    expect(await client.migrateDocument(migrate)).toEqual({ migrationId: 'm-2' });
    const erasure = scriptedFetch([failure, success({ erasureId: 'e-2' })]);
    await createClient({ ...options, fetch: erasure.fetch, retry: fast }).eraseUser({
      organizationId: 'a',
      userId: 'u',
    });
    for (const { keys } of [migration, erasure]) {
      expect(keys).toHaveLength(2);
      expect(keys[0]).toMatch(/^[\x20-\x7e]{1,255}$/);
      expect(keys[1]).toBe(keys[0]);
    }
    // Each call its own key; other operations send none.
    await client.migrateDocument(migrate);
    expect(migration.keys[2]).not.toBe(migration.keys[0]);
    const read = scriptedFetch([success([])]);
    await createClient({ ...options, fetch: read.fetch }).getConfig({ organizationId: 'a', userId: 'u' });
    expect(read.keys).toEqual([undefined]);
  });

  test.each([
    [
      '429 RESOURCE_EXHAUSTED (refused before any work)',
      { status: 429, body: { error: { message: 'Slow down.', status: 'RESOURCE_EXHAUSTED' } } },
    ],
    ['a refused connection (nothing was sent)', refused],
  ])('%s is resent for those calls too', async (_name, failure) => {
    const { fetch, urls } = scriptedFetch([failure, success({ migrationId: 'm-1' })]);
    const client = createClient({ ...options, fetch, retry: fast });
    expect(await client.migrateDocument(migrate)).toEqual({ migrationId: 'm-1' });
    expect(urls).toHaveLength(2);
  });

  test('gives up after `attempts` with the last answer; retry: false tries once', async () => {
    const always = scriptedFetch([unavailable]);
    const client = createClient({ ...options, fetch: always.fetch, retry: fast });
    await expect(client.getConfig({ organizationId: 'a', userId: 'b' })).rejects.toMatchObject({
      name: 'ServiceError',
      status: 'UNAVAILABLE',
    });
    expect(always.urls).toHaveLength(4);

    const once = scriptedFetch([unavailable]);
    const noRetry = createClient({ ...options, fetch: once.fetch, retry: false });
    await expect(noRetry.getConfig({ organizationId: 'a', userId: 'b' })).rejects.toMatchObject({
      status: 'UNAVAILABLE',
    });
    expect(once.urls).toHaveLength(1);
    // A call's own options win over the client's.
    await expect(
      noRetry.getConfig({ organizationId: 'a', userId: 'b' }, { retry: { attempts: 2, baseDelayMs: 1 } }),
    ).rejects.toMatchObject({ status: 'UNAVAILABLE' });
    expect(once.urls).toHaveLength(3);
  });

  test('a retry option passed as undefined keeps its default (3 attempts), as a left-out one does', async () => {
    const { fetch, urls } = scriptedFetch([unavailable, unavailable, unavailable, success([])]);
    const configured: { attempts?: number } = {};
    const client = createClient({ ...options, fetch, retry: { attempts: configured.attempts, baseDelayMs: 1 } });
    await expect(client.getConfig({ organizationId: 'a', userId: 'b' })).rejects.toMatchObject({
      status: 'UNAVAILABLE',
    });
    expect(urls).toHaveLength(3);
  });

  test('no retry starts after the deadline: the caller gets the answer at once', async () => {
    const { fetch, urls } = scriptedFetch([unavailable, success([])]);
    const client = createClient({ ...options, fetch, retry: { attempts: 5, baseDelayMs: 60_000, maxDelayMs: 60_000 } });
    // The jitter draws half of the 60 s step: a 30 s wait, far past the 1 s deadline.
    const random = Math.random;
    Math.random = () => 0.5;
    try {
      await expect(client.getConfig({ organizationId: 'a', userId: 'b' }, { deadlineMs: 1_000 })).rejects.toMatchObject(
        { status: 'UNAVAILABLE' },
      );
    } finally {
      Math.random = random;
    }
    expect(urls).toHaveLength(1);
  });

  test("the caller's signal stops the waits between attempts", async () => {
    const { fetch, urls } = scriptedFetch([unavailable]);
    const client = createClient({ ...options, fetch, retry: { attempts: 5, baseDelayMs: 60_000, maxDelayMs: 60_000 } });
    const controller = new AbortController();
    const call = client.getConfig({ organizationId: 'a', userId: 'b' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    await expect(call).rejects.toMatchObject({ status: 'UNAVAILABLE' });
    expect(urls).toHaveLength(1);
  });

  test('backoff: full jitter under an exponential step, capped', () => {
    const settings = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5, 6].map((retry) => backoffDelay(retry, settings, () => 0.999))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
    expect(backoffDelay(3, settings, () => 0)).toBe(0);
    expect(backoffDelay(2, settings, () => 0.5)).toBe(100);
  });
});

describe('waitForMigration', () => {
  const input = { organizationId: 'acme', migrationId: 'm-1' };
  const status = (value: MigrationStatusResult['status']) =>
    success({
      migrationId: 'm-1',
      organizationId: 'acme',
      documentId: 'doc-1',
      newDocumentId: 'doc-2',
      status: value,
      moved: value === 'completed' ? 3 : 0,
      skipped: 0,
      createdAt: '2026-11-22T09:00:00.000Z',
      updatedAt: '2026-11-22T09:00:00.000Z',
    });

  test.each(['completed', 'failed'] as const)('reads the status until it is %s, and resolves with it', async (last) => {
    const { fetch, urls } = scriptedFetch([status('pending'), status('in_progress'), status(last)]);
    const client = createClient({ ...options, fetch });
    const final = await client.waitForMigration(input, { intervalMs: 1 });
    expect(final).toMatchObject({ status: last, migrationId: 'm-1' });
    expect(urls).toEqual(Array(3).fill('http://api.test/v2/organizations/documents/migrate/status'));
  });

  test('rejects with a WaitTimeoutError holding the last status when it does not end in time', async () => {
    const { fetch } = scriptedFetch([status('in_progress')]);
    const error = await caught(
      createClient({ ...options, fetch }).waitForMigration(input, { timeoutMs: 50, intervalMs: 5 }),
    );
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error).toMatchObject({ migrationId: 'm-1', timeoutMs: 50, lastStatus: { status: 'in_progress' } });
  });

  test('an error answer ends the wait with that error; a slow status read ends at the timeout', async () => {
    const notFound = scriptedFetch([
      { status: 404, body: { error: { message: 'Migration not found.', status: 'NOT_FOUND' } } },
    ]);
    await expect(createClient({ ...options, fetch: notFound.fetch }).waitForMigration(input)).rejects.toMatchObject({
      name: 'ServiceError',
      status: 'NOT_FOUND',
    });

    const hanging = ((_url: string, init: RequestInit) =>
      new Promise((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      })) as typeof globalThis.fetch;
    const error = await caught(createClient({ ...options, fetch: hanging }).waitForMigration(input, { timeoutMs: 30 }));
    expect(error).toBeInstanceOf(WaitTimeoutError);
  });

  test("the caller's signal stops the wait", async () => {
    const { fetch } = scriptedFetch([status('pending')]);
    const controller = new AbortController();
    const wait = createClient({ ...options, fetch }).waitForMigration(input, {
      intervalMs: 60_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 10);
    await expect(wait).rejects.toMatchObject({ name: 'TransportError', kind: 'network' });
  });
});
