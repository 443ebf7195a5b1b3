import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { API_PAGE_PATHS } from '#local/api-pages.js';
import { PUBLIC_ROUTES } from '#service/routes.js';
import { hashToken } from '#shared/auth/credential.js';
import {
  assertConcurrently,
  assertErrorEnvelope,
  badRequests,
  FUZZ_RUNS,
  FUZZ_TIMEOUT_MS,
  hostileExtraHeaders,
  ODD_METHODS,
  type RawRequest,
  ROUTE_FUZZ_SPECS,
} from '../support/fuzz.js';
import { type LocalService, rawRequest, startLocalService } from '../support/local-service.js';

/**
 * Over real HTTP against the local server (API Gateway twin, every function, the
 * not-found function, DynamoDB Local and the SQS twin): generated bad requests to the named routes,
 * and optionally to paths that are no route. Every answer is a contract envelope with a
 * matching status, never a 5xx; afterwards the tables are as they were and the queue has seen
 * nothing. Split over two test files so that Jest runs them side by side.
 */
export const defineHttpFuzz = (routeNames: readonly string[], { unknownPaths }: { unknownPaths: boolean }): void => {
  let service: LocalService;
  let deliveries = 0;
  const apiKey = 'ak_fuzz_http';
  const token = 'st_fuzz-http-token';

  beforeAll(async () => {
    service = await startLocalService({
      consumer: async () => {
        deliveries += 1;
      },
    });
    await service.doc.send(
      new PutCommand({
        TableName: service.tables.credentials,
        Item: { apiKey, tokenHash: hashToken(token), organizationIds: ['org-1'], createdAt: new Date().toISOString() },
      }),
    );
  });
  afterAll(async () => {
    await service?.close();
  });

  const scanAll = async (table: string) => (await service.doc.send(new ScanCommand({ TableName: table }))).Items ?? [];
  const allTables = async () => ({
    config: await scanAll(service.tables.config),
    migrations: await scanAll(service.tables.migrations),
    credentials: await scanAll(service.tables.credentials),
  });

  // On the wire: header names in any letter case, a header repeated, other headers with hostile
  // values, bytes that are not UTF-8.
  const wire = fc.record({
    upperCase: fc.boolean(),
    repeatKey: fc.boolean(),
    extraHeaders: hostileExtraHeaders,
    query: fc.option(fc.constantFrom('?a=1', '?data=%7B%7D', '?', '?x-service-api-key=k'), { nil: undefined }),
    // Mostly the generated text body; sometimes raw bytes instead.
    binaryBody: fc.oneof(
      { weight: 9, arbitrary: fc.constant(undefined) },
      fc.uint8Array({ minLength: 1, maxLength: 40 }),
    ),
  });
  interface WireOptions {
    upperCase?: boolean;
    repeatKey?: boolean;
    extraHeaders?: [string, string][];
    query?: string | undefined;
    binaryBody?: Uint8Array | undefined;
  }

  const send = async (path: string, request: RawRequest, options: WireOptions = {}) => {
    const headers: [string, string][] = Object.entries(request.headers).map(([name, value]) => [
      options.upperCase ? name.toUpperCase() : name,
      value,
    ]);
    if (options.repeatKey && request.headers['x-service-api-key'] !== undefined) {
      headers.push(['x-service-api-key', request.headers['x-service-api-key']]);
    }
    headers.push(...(options.extraHeaders ?? []));
    const body = options.binaryBody ? Buffer.from(options.binaryBody) : request.body;
    const sendsBody = request.method !== 'GET' && request.method !== 'HEAD';
    const response = await rawRequest(`${service.baseUrl}${path}${options.query ?? ''}`, {
      method: request.method,
      headers,
      ...(sendsBody && body !== undefined ? { body } : {}),
    });
    const contentType = response.headers['content-type'] as string | undefined;
    // HEAD answers carry no body: the status and the content type are all there is to check.
    if (request.method === 'HEAD') {
      if (!contentType?.startsWith('application/json') || response.status < 400 || response.status >= 500) {
        throw new Error(`HEAD ${path}: HTTP ${response.status} ${contentType}`);
      }
      return 'HEAD';
    }
    return assertErrorEnvelope({ httpStatus: response.status, contentType, body: JSON.parse(response.text) });
  };

  const HTTP_METHODS = [...ODD_METHODS, 'HEAD'];
  const routes = ROUTE_FUZZ_SPECS.filter((route) => routeNames.includes(route.name));

  describe.each(routes)(
    'over HTTP, generated bad requests to $path',
    ({ path, valid, required, extraMutations, accepted }) => {
      test(
        `${FUZZ_RUNS} cases: envelope, matching status, no 5xx, tables unchanged, nothing queued`,
        async () => {
          const before = await allTables();
          const seen = new Map<string, number>();
          await assertConcurrently(
            fc.tuple(
              badRequests(valid, required, apiKey, token, {
                extraMutations: extraMutations ?? [],
                accepted: accepted ?? {},
                methods: HTTP_METHODS,
              }),
              wire,
            ),
            async ([request, options]) => {
              const status = await send(path, request, options);
              seen.set(status, (seen.get(status) ?? 0) + 1);
            },
          );
          expect(await allTables()).toEqual(before);
          await service.queue.whenIdle();
          expect(deliveries).toBe(0);
          expect([...seen.keys()]).toEqual(
            expect.arrayContaining(['INVALID_ARGUMENT', 'PERMISSION_DENIED', 'UNAUTHENTICATED', 'HEAD']),
          );
        },
        FUZZ_TIMEOUT_MS,
      );
    },
  );

  if (!unknownPaths) return;

  // Paths next to the real ones (case, trailing slash, encoding, dot segments) and random ones.
  const ROUTE_PATHS = ROUTE_FUZZ_SPECS.map((route) => route.path);
  const PAGE_PATHS: readonly string[] = API_PAGE_PATHS;
  const segment = fc.stringMatching(/^[A-Za-z0-9._~%-]{0,12}$/);
  const unknownPath = fc
    .oneof(
      fc
        .constantFrom(...ROUTE_PATHS)
        .chain((path) =>
          fc.constantFrom(
            `${path}/`,
            path.toUpperCase(),
            `${path}/x`,
            path.replace('/v2/', '/v1/'),
            path.replace('/v2/', '/v2//'),
            `/${path.slice(1).replaceAll('/', '%2F')}`,
            `/.${path}`,
            `${path}/..`,
            path.slice(0, -1),
          ),
        ),
      fc.array(segment, { minLength: 0, maxLength: 5 }).map((parts) => `/${parts.join('/')}`),
      fc.constantFrom('/', '/v2', '/v2/notifications', '/v2/organizations/documents', '/favicon.ico', '/%00'),
    )
    // Clients resolve dot segments before sending (so does the URL parser here): compare resolved.
    // The twin's static pages (GET /, /docs, /openapi.json) are not API routes but answer a GET.
    .filter((path) => ![...ROUTE_PATHS, ...PAGE_PATHS].includes(new URL(`http://127.0.0.1${path}`).pathname))
    // The pages of the links own everything under their prefixes (HTML, fuzzed on their own:
    // fuzz-link-pages.test.ts).
    .filter(
      (path) => !PUBLIC_ROUTES.some((route) => new URL(`http://127.0.0.1${path}`).pathname.startsWith(route.prefix)),
    );

  test(
    `${FUZZ_RUNS} requests to unknown paths, any method and body: 404 NOT_FOUND in the envelope`,
    async () => {
      const before = await allTables();
      const [route] = ROUTE_FUZZ_SPECS;
      if (!route) throw new Error('no routes');
      await assertConcurrently(
        fc.tuple(
          unknownPath,
          fc.constantFrom('POST', ...HTTP_METHODS),
          badRequests(route.valid, route.required, apiKey, token),
        ),
        async ([path, method, request]) => {
          const status = await send(path, { ...request, method });
          if (status !== 'HEAD' && status !== 'NOT_FOUND') throw new Error(`${method} ${path}: ${status}`);
        },
      );
      expect(await allTables()).toEqual(before);
    },
    FUZZ_TIMEOUT_MS,
  );
};
