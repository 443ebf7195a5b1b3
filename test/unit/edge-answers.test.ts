import { BatchGetCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, beforeEach, describe, expect, jest, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import * as z from 'zod/mini';
import type { HttpHandler } from '#shared/edge/http-route.js';
import { parseCallableBody } from '#shared/edge/http-route.js';
import { publicRoute } from '#shared/edge/public-route.js';
import { FIXED_PAGES, fixedPagesIn } from '#shared/links/pages/fixed-pages.js';
import { PAGE_HEADERS } from '#shared/links/pages/layout.js';
import { logger } from '#shared/platform/logger.js';
import { apiEvent, lambdaContext, parseResponse } from '../support/api-events.js';
import { authHeaders, credentialRecord } from '../support/credentials.js';
import { setUnitTestEnv } from '../support/test-env.js';

/**
 * What the edge answers beyond the envelope's shape: the API's headers on every answer, JSON
 * failures in the service's own words, a did-you-mean hint that gives way when zod changes, and
 * the pages' headers on every page answer (docs/api.md, Wire protocol; Links in emails).
 */
setUnitTestEnv();
const ddb = mockClient(DynamoDBDocumentClient);
let handler: HttpHandler;
let notFound: HttpHandler;
let keyCounter = 0;
let apiKey: string;

beforeAll(async () => {
  ({ handler } = await import('#functions/get-config.js'));
  ({ handler: notFound } = (await import('#functions/not-found.js')) as unknown as { handler: HttpHandler });
});

beforeEach(() => {
  ddb.reset();
  apiKey = `ak_answers_${++keyCounter}`;
  ddb.on(GetCommand).resolves({});
  ddb
    .on(GetCommand, { TableName: 'credentials-table', Key: { apiKey } })
    .resolves({ Item: credentialRecord({ apiKey, scopes: ['read'] }) });
  ddb.on(BatchGetCommand).resolves({ Responses: { 'config-table': [] } });
});

const call = async (options: Parameters<typeof apiEvent>[1] = {}) =>
  parseResponse(
    await handler(
      apiEvent('/v2/notifications/config/get', {
        headers: authHeaders(apiKey),
        body: { data: { organizationId: 'org-1', userId: 'u1' } },
        ...options,
      }),
      lambdaContext(),
    ),
  );

describe('every API answer is neither cached nor sniffed', () => {
  test.each([
    ['a success', {}, 200],
    ['a refused body', { rawBody: '{' }, 400],
    ['an unknown key', { headers: authHeaders('ak_nobody') }, 401],
    ['an organization not granted', { body: { data: { organizationId: 'org-9', userId: 'u1' } } }, 403],
  ])('%s', async (_name, options, status) => {
    const response = await call(options as Parameters<typeof apiEvent>[1]);
    expect(response.statusCode).toBe(status);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  test('an unexpected failure (500) and an unknown route (404) too', async () => {
    ddb.on(BatchGetCommand).rejects(new Error('boom'));
    const error = jest.spyOn(logger, 'error').mockImplementation(() => {});
    const failed = await call();
    error.mockRestore();
    expect(failed.statusCode).toBe(500);
    const unknown = parseResponse(await notFound(apiEvent('/v2/nope'), lambdaContext()));
    expect(unknown.statusCode).toBe(404);
    for (const response of [failed, unknown]) {
      expect(response.headers).toMatchObject({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    }
  });
});

describe('a body that is not JSON is answered in the service own words, never the parser', () => {
  const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  test.each([
    ['cut short', '{"data": ', 'Request body must be valid JSON: it ends before the JSON value does.'],
    ['a stray character', '{"data": x}', 'Request body must be valid JSON: it is not well-formed.'],
    ['a trailing character', '{"data": {}}}', 'Request body must be valid JSON: it is not well-formed.'],
  ])('%s', async (_name, rawBody, message) => {
    const response = await call({ rawBody });
    expect(response.statusCode).toBe(400);
    expect(response.body.error).toEqual({ status: 'INVALID_ARGUMENT', message });
  });

  test('a body nested deeper than any call stack, with an escape in it, is checked like any other', async () => {
    const rawBody = `{"data":{"organizationId":"org-1","userId":"u\\u0031","x":${deep(300_000)}}}`;
    const response = await call({ rawBody });
    expect(response.statusCode).toBe(400);
    expect(response.body.error?.message).toBe('data has an unknown key: x');
  });

  test('a parser that runs out of stack says the body is nested too deeply', async () => {
    const parse = jest.spyOn(JSON, 'parse').mockImplementationOnce(() => {
      throw new RangeError('Maximum call stack size exceeded');
    });
    const response = await call({ rawBody: '[[]]' });
    parse.mockRestore();
    expect(response.body.error?.message).toBe('Request body must be valid JSON: it is nested too deeply.');
  });

  test('a __proto__ key however deep is still refused', async () => {
    const rawBody = `{"data":{"organizationId":"org-1","userId":"u1","x":[[[{"a":{"__proto__":1}}]]]}}`;
    const response = await call({ rawBody });
    expect(response.body.error?.message).toMatch(/^Request body must not hold a key named __proto__/);
  });
});

describe('did-you-mean hints', () => {
  const schema = () => z.strictObject({ organizationId: z.string(), userIds: z.optional(z.array(z.string())) });
  const unknownKeyMessage = (of: z.core.$ZodType) => {
    try {
      parseCallableBody(of, { data: { organizationId: 'o', userId: ['u'] } });
    } catch (error) {
      return (error as Error).message;
    }
  };

  test('name the key meant, read through zod public classes', () => {
    expect(unknownKeyMessage(schema())).toBe('data has an unknown key: userId (did you mean userIds?)');
  });

  test('give way to the plain message when zod no longer looks as expected', () => {
    const changed = schema();
    Object.defineProperty(changed, 'shape', {
      get: () => {
        throw new Error('moved in a new release');
      },
    });
    expect(unknownKeyMessage(changed)).toBe('data has an unknown key: userId');
  });
});

describe('the pages share the response headers and the error registry', () => {
  const route = { prefix: '/u/', methods: ['GET', 'POST'] } as const;
  const pageEvent = (rawPath: string, proxy?: string, headers: Record<string, string> = {}) => ({
    ...apiEvent(rawPath, { method: 'GET', headers }),
    ...(proxy === undefined ? {} : { pathParameters: { proxy } }),
  });

  test('a failure: the try-again page, with the page headers', async () => {
    const error = jest.spyOn(logger, 'error').mockImplementation(() => {});
    const handle = publicRoute(route, fixedPagesIn, async () => {
      throw new Error('boom');
    });
    const response = await handle(pageEvent('/u/t', 't'), lambdaContext());
    error.mockRestore();
    expect(response).toMatchObject({ statusCode: 429, body: FIXED_PAGES.tryAgain });
    expect(response.headers).toEqual({ ...PAGE_HEADERS, 'retry-after': '30' });
  });

  test("the edge's own pages and the page call follow the browser's Accept-Language", async () => {
    const error = jest.spyOn(logger, 'error').mockImplementation(() => {});
    const seen: (string | undefined)[] = [];
    const handle = publicRoute(route, fixedPagesIn, async (request) => {
      seen.push(request.acceptLanguage);
      throw new Error('boom');
    });
    const french = { 'Accept-Language': 'fr-FR,fr;q=0.9,en;q=0.5' };
    const failed = await handle(pageEvent('/u/t', 't', french), lambdaContext());
    const noToken = await handle(pageEvent('/u/', undefined, french), lambdaContext());
    error.mockRestore();
    expect(seen).toEqual(['fr-FR,fr;q=0.9,en;q=0.5']);
    expect(failed).toMatchObject({ statusCode: 429, body: fixedPagesIn('fr').tryAgain });
    expect(noToken).toMatchObject({ statusCode: 404, body: fixedPagesIn('fr').notFound });
    expect(fixedPagesIn('fr').notFound).not.toBe(FIXED_PAGES.notFound);
  });
});
