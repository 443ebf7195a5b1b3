import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import pMap from 'p-map';
import { API_PAGE_PATHS } from '#local/api-pages.js';
import { PUBLIC_ROUTES } from '#service/routes.js';
import { hashToken } from '#shared/auth/credential.js';
import { ODD_METHODS } from '../support/fuzz/bad-requests.js';
import { assertErrorEnvelope } from '../support/fuzz/error-envelope.js';
import { hostileExtraHeaders } from '../support/fuzz/hostile-headers.js';
import { ROUTE_FUZZ_SPECS } from '../support/fuzz/route-specs.js';
import { FUZZ_SEED } from '../support/fuzz/runs.js';
import { type LocalService, rawRequest, startLocalService } from '../support/local-service.js';

/**
 * What only the wire shows, against the local server (API Gateway twin, every function, the
 * not-found function, DynamoDB Local and the SQS twin): header names in any letter case, a header
 * repeated, hostile extra headers, query strings, bytes that are not UTF-8, a large body, HEAD and
 * odd methods, and paths that are no route. Every answer is a contract envelope with a matching
 * status, never a 5xx; afterwards the tables are as they were and the queue has seen nothing.
 * The bodies themselves are fuzzed in process, route by route (fuzz-handlers.test.ts).
 */
let service: LocalService;
let deliveries = 0;
const apiKey = 'ak_wire';
const token = 'st_wire-token';

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

interface WireRequest {
  method: string;
  headers: [string, string][];
  body?: string | Buffer;
  query?: string;
}

/** Sends a request; answers the envelope's status ('HEAD' for a HEAD, which carries no body). */
const send = async (path: string, { method, headers, body, query = '' }: WireRequest) => {
  const sendsBody = method !== 'GET' && method !== 'HEAD';
  const response = await rawRequest(`${service.baseUrl}${path}${query}`, {
    method,
    headers,
    ...(sendsBody && body !== undefined ? { body } : {}),
  });
  const contentType = response.headers['content-type'] as string | undefined;
  if (method === 'HEAD') {
    if (!contentType?.startsWith('application/json') || response.status < 400 || response.status >= 500) {
      throw new Error(`HEAD ${path}: HTTP ${response.status} ${contentType}`);
    }
    return 'HEAD';
  }
  return assertErrorEnvelope({ httpStatus: response.status, contentType, body: JSON.parse(response.text) });
};

const credential: [string, string][] = [
  ['x-service-api-key', apiKey],
  ['x-service-auth-token', token],
];
const json: [string, string] = ['content-type', 'application/json'];
const upper = (headers: [string, string][]): [string, string][] =>
  headers.map(([name, value]) => [name.toUpperCase(), value]);
/** A body every route refuses once the caller is known: `data` is no object. */
const invalid = JSON.stringify({ data: null });
/** The same, but with the route's valid data for an organization the credential is not granted. */
const notGranted = (valid: Record<string, unknown>) => JSON.stringify({ data: { ...valid, organizationId: 'org-2' } });

/** Hostile header sets (a second content type or token, encodings, trace and forwarding headers, ...), seeded. */
const HOSTILE_HEADER_SETS = fc.sample(hostileExtraHeaders, { numRuns: 12, seed: FUZZ_SEED });

/** The wire cases of one route, each with the status it must get (undefined: any refusal in the envelope). */
const wireCases = (valid: Record<string, unknown>): [string, WireRequest, string | undefined][] => [
  [
    'header names in upper case reach the credential check',
    { method: 'POST', headers: upper([...credential, json]), body: invalid },
    'INVALID_ARGUMENT',
  ],
  ['no credential', { method: 'POST', headers: [json], body: invalid }, 'UNAUTHENTICATED'],
  [
    'the credential in the query string is no credential',
    { method: 'POST', headers: [json], body: invalid, query: `?x-service-api-key=${apiKey}` },
    'UNAUTHENTICATED',
  ],
  [
    'an organization not granted',
    { method: 'POST', headers: [...credential, json], body: notGranted(valid) },
    'PERMISSION_DENIED',
  ],
  [
    'the api key header twice',
    { method: 'POST', headers: [...credential, ['x-service-api-key', apiKey], json], body: invalid },
    undefined,
  ],
  [
    "a credential header past DynamoDB's key limit",
    {
      method: 'POST',
      headers: [['x-service-api-key', 'k'.repeat(8000)], ['x-service-auth-token', token], json],
      body: invalid,
    },
    'UNAUTHENTICATED',
  ],
  [
    'bytes that are not UTF-8',
    { method: 'POST', headers: [...credential, json], body: Buffer.from([0xff, 0xfe, 0x7b, 0x80, 0x22]) },
    undefined,
  ],
  [
    'a body of 200 KB',
    { method: 'POST', headers: [...credential, json], body: JSON.stringify({ data: { junk: 'x'.repeat(200_000) } }) },
    'INVALID_ARGUMENT',
  ],
  [
    'a query string',
    { method: 'POST', headers: [...credential, json], body: invalid, query: '?data=%7B%7D' },
    'INVALID_ARGUMENT',
  ],
  ['HEAD', { method: 'HEAD', headers: credential }, 'HEAD'],
  ...ODD_METHODS.map((method): [string, WireRequest, undefined] => [
    method,
    { method, headers: [...credential, json], body: invalid },
    undefined,
  ]),
  ...HOSTILE_HEADER_SETS.map((extra, i): [string, WireRequest, undefined] => [
    `hostile extra headers #${i}`,
    { method: 'POST', headers: [...credential, json, ...extra], body: notGranted(valid) },
    undefined,
  ]),
];

describe.each(ROUTE_FUZZ_SPECS)('over HTTP, $path', ({ path, valid }) => {
  test('each wire case gets its status in the envelope, never a 5xx; the tables are unchanged and nothing is queued', async () => {
    const before = await allTables();
    for (const [name, request, expected] of wireCases(valid)) {
      const status = await send(path, request).catch((error: Error) => {
        throw new Error(`${name}: ${error.message}`);
      });
      if (expected !== undefined) expect({ name, status }).toEqual({ name, status: expected });
    }
    expect(await allTables()).toEqual(before);
    await service.queue.whenIdle();
    expect(deliveries).toBe(0);
  });
});

// Paths next to the real ones (case, trailing slash, encoding, dot segments) and random ones.
const ROUTE_PATHS = ROUTE_FUZZ_SPECS.map((route) => route.path);
const PAGE_PATHS: readonly string[] = API_PAGE_PATHS;
const nearMisses = (path: string) => [
  `${path}/`,
  path.toUpperCase(),
  `${path}/x`,
  path.replace('/v2/', '/v1/'),
  path.replace('/v2/', '/v2//'),
  `/${path.slice(1).replaceAll('/', '%2F')}`,
  `/.${path}`,
  `${path}/..`,
  path.slice(0, -1),
];
const segment = fc.stringMatching(/^[A-Za-z0-9._~%-]{0,12}$/);
const isRouteOrPage = (path: string) => {
  // Clients resolve dot segments before sending (so does the URL parser here): compare resolved.
  // The twin's static pages (GET /, /docs, /openapi.json) are not API routes but answer a GET;
  // the pages of the links own everything under their prefixes (fuzz-link-pages.test.ts).
  const { pathname } = new URL(`http://127.0.0.1${path}`);
  return (
    [...ROUTE_PATHS, ...PAGE_PATHS].includes(pathname) ||
    PUBLIC_ROUTES.some((route) => pathname.startsWith(route.prefix))
  );
};
const UNKNOWN_PATHS = [
  ...ROUTE_PATHS.flatMap(nearMisses),
  '/',
  '/v2',
  '/v2/notifications',
  '/v2/organizations/documents',
  '/favicon.ico',
  '/%00',
  ...fc.sample(
    fc.array(segment, { maxLength: 5 }).map((parts) => `/${parts.join('/')}`),
    { numRuns: 40, seed: FUZZ_SEED },
  ),
].filter((path) => !isRouteOrPage(path));

test(`${UNKNOWN_PATHS.length} paths that are no route, with every method: 404 NOT_FOUND in the envelope`, async () => {
  const before = await allTables();
  const cases = UNKNOWN_PATHS.flatMap((path) =>
    ['POST', ...ODD_METHODS, 'HEAD'].map((method) => [path, method] as const),
  );
  const wrong: string[] = [];
  await pMap(
    cases,
    async ([path, method]) => {
      const status = await send(path, { method, headers: [...credential, json], body: invalid });
      if (status !== 'HEAD' && status !== 'NOT_FOUND') wrong.push(`${method} ${path}: ${status}`);
    },
    { concurrency: 8 },
  );
  expect(wrong).toEqual([]);
  expect(await allTables()).toEqual(before);
});
