import fc from 'fast-check';
import pMap from 'p-map';
import { ERROR_HTTP_STATUS, type ErrorStatus } from '#shared/api/errors.js';

/** Cases per property: 200 in `npm test`; `npm run soak` raises it with FUZZ_RUNS. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 200);

/**
 * Cases of a property over HTTP whose inputs are fuzzed in process too (the wire adds no new
 * input there, only the path to it): a quarter of FUZZ_RUNS.
 */
export const HTTP_FUZZ_RUNS = Math.ceil(FUZZ_RUNS / 4);

/**
 * Every run generates the same cases (FUZZ_SEED picks others): a failure in CI replays on a
 * laptop. fast-check prints the seed and the path of a failing case.
 */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261125);
fc.configureGlobal({ seed: FUZZ_SEED });

/** A Jest timeout that grows with FUZZ_RUNS (about 20 ms a case over HTTP on a busy 2-core machine). */
export const FUZZ_TIMEOUT_MS = 30_000 + FUZZ_RUNS * 20;

export interface RawRequest {
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

const jsonText = fc.oneof(
  fc.json({ maxDepth: 3 }),
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', '{', '{"data":', 'null', '[]', '{"data":null}', '{"data":{}}', '"data"', '{"__proto__":{}}'),
);

// Values that are invalid for every field of every route (string, array or config object).
const INVALID_VALUES = [null, 42, true, {}, [], '', 'x'.repeat(300), [1], { bad: 1 }, ['\u0000'], '\ud800', 'a\u0007'];

/**
 * Turns a valid `data` object into an invalid one, one way or several at once: a required key
 * removed, a value replaced by one that no field accepts, or an unknown key added.
 */
export type DataMutation = (data: Record<string, unknown>) => void;

/** Values of INVALID_VALUES that a route accepts for one of its fields (an empty policy is a policy). */
export type Accepted = Record<string, readonly unknown[]>;

const mutate = (
  valid: Record<string, unknown>,
  required: readonly string[],
  extra: readonly DataMutation[] = [],
  accepted: Accepted = {},
) =>
  fc
    .array(
      fc.oneof(
        ...(extra.length ? [fc.constantFrom(...extra)] : []),
        fc.constantFrom(...required).map((key) => (d: Record<string, unknown>) => {
          delete d[key];
        }),
        fc
          .tuple(fc.constantFrom(...Object.keys(valid)), fc.constantFrom(...INVALID_VALUES))
          .filter(([key, value]) => !(accepted[key] ?? []).some((ok) => JSON.stringify(ok) === JSON.stringify(value)))
          .map(([key, value]) => (d: Record<string, unknown>) => {
            d[key] = structuredClone(value);
          }),
        fc.string({ minLength: 1, maxLength: 10 }).map((key) => (d: Record<string, unknown>) => {
          // defineProperty: a plain assignment to "__proto__" would add no key at all.
          Object.defineProperty(d, key in valid ? `${key}_` : key, { value: 'extra', enumerable: true });
        }),
        // Well-formed but not granted to the credential.
        fc.constant((d: Record<string, unknown>) => {
          d.organizationId = 'org-not-granted';
        }),
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map((mutations) => {
      const data = structuredClone(valid);
      for (const apply of mutations) apply(data);
      return data;
    });

/** Methods other than POST that a client (or a scanner) may send; HEAD is left to the wire cases (http-wire.test.ts). */
export const ODD_METHODS = ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

export interface RouteFuzzSpec {
  name: string;
  path: string;
  /** A valid `data` for a credential granted org-1. */
  valid: Record<string, unknown>;
  required: string[];
  /** Route-specific ways to break a valid `data`. */
  extraMutations?: DataMutation[];
  accepted?: Accepted;
}

/**
 * Every route with a valid body for a credential granted org-1: the seeds every bad-input
 * generator mutates. `name` is the route's operationId; a test holds this list to the routes.
 */
export const ROUTE_FUZZ_SPECS: RouteFuzzSpec[] = [
  {
    name: 'setConfig',
    path: '/v2/notifications/config/set',
    valid: {
      organizationId: 'org-1',
      userIds: ['u1', 'u2'],
      documentIds: ['d1'],
      config: { inbox: 'ALL', email: 'NONE' },
      category: 'comment',
    },
    required: ['organizationId', 'userIds', 'config'],
    extraMutations: [
      (d) => {
        d.category = 'Comment';
      },
      (d) => {
        d.category = '__proto__';
      },
      (d) => {
        d.category = 'c'.repeat(65);
      },
      // A consent stated wrongly (docs/api.md, Consent evidence).
      (d) => {
        d.consent = { source: 'settings', color: 'blue' };
      },
      (d) => {
        d.consent = { source: 'settings', capturedAt: '2999-01-01T00:00:00Z' };
      },
      (d) => {
        d.consent = { source: 'settings', capturedAt: '2000-01-01T00:00:00Z' };
      },
      (d) => {
        d.consent = { source: 'settings', ipAddress: '999.1.1.1' };
      },
      (d) => {
        d.consent = { source: 'settings', text: 't'.repeat(5_001) };
      },
      (d) => {
        d.consent = 'yes';
      },
      (d) => {
        d.config = {};
      },
      (d) => {
        d.config = { inbox: 'SOME' };
      },
      (d) => {
        d.userIds = Array.from({ length: 1001 }, (_, i) => `u${i}`);
      },
      (d) => {
        d.documentIds = Array.from({ length: 31 }, (_, i) => `d${i}`);
      },
    ],
  },
  {
    name: 'getConfig',
    path: '/v2/notifications/config/get',
    valid: { organizationId: 'org-1', userId: 'u1', documentIds: ['d1'], category: 'mention', explain: true },
    required: ['organizationId', 'userId'],
    accepted: { explain: [true] },
    extraMutations: [
      (d) => {
        d.category = 'Comment';
      },
      (d) => {
        d.category = '__proto__';
      },
      (d) => {
        d.category = 'c'.repeat(65);
      },
      (d) => {
        d.explain = 'yes';
      },
      (d) => {
        d.userId = ['u1'];
      },
    ],
  },
  {
    name: 'setSchedule',
    path: '/v2/notifications/schedule/set',
    valid: {
      organizationId: 'org-1',
      userIds: ['u1'],
      schedule: {
        timeZone: 'Europe/Berlin',
        quietHours: [{ days: ['mon'], start: '22:00', end: '07:00' }],
        digest: { channels: ['email'], cadence: 'weekly', at: '08:00', day: 'fri' },
      },
    },
    required: ['organizationId', 'userIds', 'schedule'],
    // null removes a schedule: a valid value.
    accepted: { schedule: [null] },
    extraMutations: [
      (d) => {
        d.schedule = { timeZone: 'Mars/Olympus' };
      },
      (d) => {
        d.schedule = { timeZone: 'UTC', quietHours: [{ days: ['mon'], start: '24:00', end: '07:00' }] };
      },
      (d) => {
        d.schedule = { timeZone: 'UTC', quietHours: [{ days: ['mon'], start: '7:5', end: '08:00' }] };
      },
      (d) => {
        d.schedule = { timeZone: 'UTC', quietHours: [{ days: ['mon'], start: '08:00', end: '08:00' }] };
      },
      (d) => {
        d.schedule = { timeZone: 'UTC', quietHours: [{ days: ['mon', 'mon'], start: '08:00', end: '09:00' }] };
      },
      (d) => {
        d.schedule = {
          timeZone: 'UTC',
          quietHours: Array.from({ length: 8 }, () => ({ days: ['mon'], start: '08:00', end: '09:00' })),
        };
      },
      (d) => {
        d.schedule = { timeZone: 'UTC', digest: { channels: ['email'], cadence: 'weekly', at: '08:00' } };
      },
      (d) => {
        d.schedule = { timeZone: 'UTC', digest: { channels: ['email'], cadence: 'daily', at: '08:00', day: 'mon' } };
      },
      (d) => {
        d.schedule = { timeZone: 'UTC', snoozeUntil: '2099-01-01T00:00:00Z' };
      },
      (d) => {
        d.schedule = { timeZone: 'UTC', snoozeUntil: 'tomorrow' };
      },
      (d) => {
        d.schedule = {
          timeZone: 'UTC',
          quietHours: [
            { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '00:00', end: '23:59' },
            { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '23:59', end: '00:00' },
          ],
        };
      },
    ],
  },
  {
    name: 'getSchedule',
    path: '/v2/notifications/schedule/get',
    valid: { organizationId: 'org-1', userId: 'u1' },
    required: ['organizationId', 'userId'],
  },
  {
    name: 'resolveConfig',
    path: '/v2/notifications/config/resolve',
    // activity stays out of `valid`: {}, which breaks every other field, is a valid activity.
    valid: {
      organizationId: 'org-1',
      documentId: 'd1',
      userIds: ['u1', 'u2'],
      category: 'share',
      at: '2026-03-29T00:30:00Z',
      priority: 'urgent',
    },
    required: ['organizationId', 'documentId', 'userIds'],
    extraMutations: [
      (d) => {
        d.at = '2026-03-29 00:30';
      },
      (d) => {
        d.at = 'now';
      },
      (d) => {
        d.priority = 'high';
      },
      (d) => {
        d.category = 'Comment';
      },
      (d) => {
        d.category = '__proto__';
      },
      (d) => {
        d.category = 'c'.repeat(65);
      },
      (d) => {
        d.activity = [];
      },
      (d) => {
        d.activity = { involvedUserIds: 'u2' };
      },
      (d) => {
        d.activity = { involvedUserIds: Array.from({ length: 1001 }, (_, i) => `u${i}`) };
      },
      (d) => {
        d.activity = { mentioned: ['u2'] };
      },
    ],
  },
  {
    name: 'resetConfig',
    path: '/v2/notifications/config/reset',
    valid: { organizationId: 'org-1', userIds: ['u1'], documentIds: ['d1'], channels: ['inbox'], category: 'x.y' },
    required: ['organizationId', 'userIds'],
    extraMutations: [
      (d) => {
        d.category = 'Comment';
      },
      (d) => {
        d.category = '__proto__';
      },
      (d) => {
        d.category = 'c'.repeat(65);
      },
      (d) => {
        d.channels = [];
      },
      (d) => {
        d.channels = ['inbox', 'inbox'];
      },
      (d) => {
        d.channels = ['sms'];
      },
    ],
  },
  {
    name: 'getConfigHistory',
    path: '/v2/notifications/config/history',
    // documentId and limit stay out of `valid`: null and 42, which break every other field, are valid there.
    valid: { organizationId: 'org-1', userId: 'u1' },
    required: ['organizationId', 'userId'],
    extraMutations: [
      (d) => {
        d.documentId = '';
      },
      (d) => {
        d.category = 'Comment';
      },
      (d) => {
        d.category = 7;
      },
      (d) => {
        d.documentId = ['d1'];
      },
      (d) => {
        d.limit = 0;
      },
      (d) => {
        d.limit = 101;
      },
      (d) => {
        d.limit = 1.5;
      },
      // Cursors a forger makes: the fuzz of cursors (fuzz-cursors.test.ts) goes deeper.
      (d) => {
        d.cursor = Buffer.from(JSON.stringify({ pk: 'H#org-1#u1', sk: '' })).toString('base64url');
      },
      (d) => {
        d.cursor = 'x'.repeat(9000);
      },
      (d) => {
        d.cursor = '!!not base64!!';
      },
    ],
  },
  {
    name: 'setPolicy',
    path: '/v2/organizations/policy/set',
    valid: { organizationId: 'org-1', policy: { channels: { email: { value: 'MINE' } } } },
    required: ['organizationId', 'policy'],
    accepted: { policy: [{}] },
    extraMutations: [
      (d) => {
        d.policy = { categories: { Comment: { label: 'Comments' } } };
      },
      (d) => {
        d.policy = { categories: { comment: { label: '' } } };
      },
      (d) => {
        d.policy = { channels: { email: { value: 'MINE', locked: 'yes' } } };
      },
      (d) => {
        d.policy = {
          categories: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`c${i}`, { label: `C${i}` }])),
        };
      },
      (d) => {
        d.expectedVersion = -1;
      },
    ],
  },
  {
    name: 'getPolicy',
    path: '/v2/organizations/policy/get',
    valid: { organizationId: 'org-1' },
    required: ['organizationId'],
  },
  {
    name: 'setBranding',
    path: '/v2/organizations/branding/set',
    valid: { organizationId: 'org-1', branding: { displayName: 'Org One', accentColor: '#0b5cad' } },
    required: ['organizationId', 'branding'],
    accepted: { branding: [null] },
    extraMutations: [
      (d) => {
        d.branding = { displayName: 'Org\u202Eeno' };
      },
      (d) => {
        d.branding = { displayName: 'Org', accentColor: '#ffff00' };
      },
      (d) => {
        d.branding = { displayName: 'Org', logo: { contentType: 'image/svg+xml', data: 'PHN2Zy8+' } };
      },
      (d) => {
        d.branding = { displayName: 'Org', logo: { contentType: 'image/png', data: 'PHN2Zy8+' } };
      },
      (d) => {
        d.branding = { displayName: 'Org', embedOrigins: ['http://app.example'] };
      },
    ],
  },
  {
    name: 'getBranding',
    path: '/v2/organizations/branding/get',
    valid: { organizationId: 'org-1' },
    required: ['organizationId'],
  },
  {
    name: 'migrateDocument',
    path: '/v2/organizations/documents/migrate',
    valid: { organizationId: 'org-1', documentId: 'doc-a', newDocumentId: 'doc-b' },
    required: ['organizationId', 'documentId', 'newDocumentId'],
    extraMutations: [
      (d) => {
        d.newDocumentId = d.documentId;
      },
      (d) => {
        d.documentIds = [d.documentId];
      },
    ],
  },
  {
    name: 'getMigrationStatus',
    path: '/v2/organizations/documents/migrate/status',
    valid: { organizationId: 'org-1', migrationId: '01JZZZZZZZZZZZZZZZZZZZZZZZ' },
    required: ['organizationId', 'migrationId'],
    extraMutations: [
      (d) => {
        d.migrationId = 'x'.repeat(257);
      },
    ],
  },
  {
    name: 'eraseUser',
    path: '/v2/organizations/users/erase',
    valid: { organizationId: 'org-1', userId: 'u1' },
    required: ['organizationId', 'userId'],
    extraMutations: [
      (d) => {
        d.userIds = [d.userId];
      },
    ],
  },
  {
    name: 'getErasureStatus',
    path: '/v2/organizations/users/erase/status',
    valid: { organizationId: 'org-1', erasureId: '01JZZZZZZZZZZZZZZZZZZZZZZZ' },
    required: ['organizationId', 'erasureId'],
    extraMutations: [
      (d) => {
        d.erasureId = '';
      },
    ],
  },
  {
    name: 'exportUser',
    path: '/v2/organizations/users/export',
    valid: { organizationId: 'org-1', userId: 'u1' },
    required: ['organizationId', 'userId'],
    extraMutations: [
      (d) => {
        d.cursor = '';
      },
      (d) => {
        d.cursor = 'k1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
      },
      (d) => {
        d.cursor = 'x'.repeat(70_000);
      },
      (d) => {
        d.cursor = 7;
      },
    ],
  },
  {
    name: 'createExport',
    path: '/v2/organizations/exports/create',
    valid: { organizationId: 'org-1', format: 'jsonl' },
    required: ['organizationId', 'format'],
    extraMutations: [
      (d) => {
        d.format = 'xml';
      },
      (d) => {
        d.documentIds = [];
      },
      (d) => {
        d.documentIds = Array.from({ length: 31 }, (_, i) => `doc-${i}`);
      },
    ],
  },
  {
    name: 'getExportStatus',
    path: '/v2/organizations/exports/status',
    valid: { organizationId: 'org-1', exportId: '01JZZZZZZZZZZZZZZZZZZZZZZZ' },
    required: ['organizationId', 'exportId'],
    extraMutations: [
      (d) => {
        d.exportId = '';
      },
    ],
  },
  {
    name: 'createLinks',
    path: '/v2/notifications/links/create',
    valid: { organizationId: 'org-1', userIds: ['u1'], documentId: 'doc-1', category: 'comment', channel: 'email' },
    required: ['organizationId', 'userIds'],
    extraMutations: [
      (d) => {
        d.expiresInDays = 366;
      },
      (d) => {
        d.expiresInDays = 0.5;
      },
      (d) => {
        d.channel = 'sms';
      },
      (d) => {
        d.category = 'Comment';
      },
      (d) => {
        d.documentId = '';
      },
      (d) => {
        d.userIds = [];
      },
    ],
  },
  {
    name: 'revokeLinks',
    path: '/v2/notifications/links/revoke',
    valid: { organizationId: 'org-1', userIds: ['u1'] },
    required: ['organizationId', 'userIds'],
    extraMutations: [
      (d) => {
        d.userIds = Array.from({ length: 1001 }, (_, i) => `u${i}`);
      },
      (d) => {
        d.userId = 'u1';
      },
    ],
  },
  {
    name: 'setWebhooks',
    path: '/v2/organizations/webhooks/set',
    valid: { organizationId: 'org-1', endpoints: [{ url: 'https://hooks.example.com/in' }] },
    required: ['organizationId', 'endpoints'],
    // No endpoint at all is a list like any other.
    accepted: { endpoints: [[]] },
    extraMutations: [
      (d) => {
        d.endpoints = Array.from({ length: 11 }, () => ({ url: 'https://hooks.example.com/in' }));
      },
      (d) => {
        d.endpoints = [{ url: `https://hooks.example.com/${'x'.repeat(2048)}` }];
      },
      (d) => {
        d.endpoints = [{ url: 'http://hooks.example.com/in' }];
      },
      (d) => {
        d.endpoints = [{ url: 'https://169.254.169.254/latest/meta-data' }];
      },
      (d) => {
        d.endpoints = [{ url: 'https://[::ffff:10.0.0.1]/in' }];
      },
      (d) => {
        d.endpoints = [{ url: 'https://hooks.example.com/in', eventTypes: [] }];
      },
      (d) => {
        d.endpoints = [{ url: 'https://hooks.example.com/in', eventTypes: ['config.changed'] }];
      },
      (d) => {
        d.endpoints = [{ id: 'ep_short', url: 'https://hooks.example.com/in' }];
      },
      (d) => {
        d.endpoints = [{ url: 'https://hooks.example.com/in', secret: 'whsec_mine' }];
      },
    ],
  },
  {
    name: 'getWebhooks',
    path: '/v2/organizations/webhooks/get',
    valid: { organizationId: 'org-1' },
    required: ['organizationId'],
  },
  {
    name: 'rotateWebhookSecret',
    path: '/v2/organizations/webhooks/rotate-secret',
    valid: { organizationId: 'org-1', endpointId: 'ep_AAAAAAAAAAAAAAAA' },
    required: ['organizationId', 'endpointId'],
    extraMutations: [
      (d) => {
        d.endpointId = 'ep_AAAAAAAAAAAAAAA#';
      },
    ],
  },
  {
    name: 'getWebhookDeliveries',
    path: '/v2/organizations/webhooks/deliveries',
    valid: { organizationId: 'org-1', endpointId: 'ep_AAAAAAAAAAAAAAAA' },
    required: ['organizationId', 'endpointId'],
    extraMutations: [
      (d) => {
        d.cursor = 'not-a-cursor';
      },
      (d) => {
        d.cursor = Buffer.from('H#org-1#u1').toString('base64url');
      },
      (d) => {
        d.cursor = 'x'.repeat(201);
      },
    ],
  },
];

/**
 * Header values a client can put on the wire (Node sends them as latin-1 bytes): tab, space,
 * visible ASCII and the bytes 0x80-0xFF (non-ASCII text arrives as these), from empty to well
 * past DynamoDB's 2,048-byte key limit. As a credential header every one is 401, never a 5xx.
 */
export const hostileHeaderValue = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({
    unit: fc
      .integer({ min: 0x09, max: 0xff })
      .filter((c) => c === 0x09 || (c >= 0x20 && c !== 0x7f))
      .map((c) => String.fromCharCode(c)),
    maxLength: 200,
  }),
  fc.integer({ min: 129, max: 8000 }).map((length) => 'k'.repeat(length)),
);

/**
 * Headers besides the two credential headers that a client (or an attacker) may add, each with a
 * hostile value: a second content type or token, content encodings, trace and forwarding headers,
 * a method override, cookies and an Authorization header. None may change an answer's envelope.
 * Values stay short enough that several fit in the server's header limit.
 */
export const hostileExtraHeaders = fc.array(
  fc.tuple(
    fc.constantFrom(
      'content-type',
      'x-service-auth-token',
      'x-service-api-key',
      'content-encoding',
      'x-amzn-trace-id',
      'traceparent',
      'x-forwarded-for',
      'forwarded',
      'x-http-method-override',
      'authorization',
      'cookie',
      'origin',
      'accept',
      'accept-charset',
    ),
    fc.oneof(
      fc.constantFrom('gzip', 'br', 'identity', 'application/json', '*/*', 'null', 'Root=1-0-0;Parent=0;Sampled=1'),
      hostileHeaderValue.filter((value) => value.length <= 400),
    ),
  ),
  { maxLength: 3 },
);

export const authVariants = (apiKey: string, token: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant({ 'x-service-api-key': apiKey, 'x-service-auth-token': token }) },
    fc.constant({}),
    fc.constant({ 'x-service-api-key': apiKey }),
    fc.record({ 'x-service-api-key': fc.constant(apiKey), 'x-service-auth-token': hostileHeaderValue }),
    fc.record({ 'x-service-api-key': hostileHeaderValue, 'x-service-auth-token': fc.constant(token) }),
  );

/**
 * Requests that must all be refused: random bodies, bodies whose `data` is a mutated valid
 * one, odd methods and content types, every kind of credential mistake.
 */
export const badRequests = (
  validData: Record<string, unknown>,
  required: readonly string[],
  apiKey: string,
  token: string,
  {
    extraMutations = [],
    methods = ODD_METHODS,
    accepted = {},
  }: { extraMutations?: readonly DataMutation[]; methods?: readonly string[]; accepted?: Accepted } = {},
) =>
  fc
    .record({
      method: fc.oneof({ weight: 5, arbitrary: fc.constant('POST') }, fc.constantFrom(...methods)),
      contentType: fc.oneof(
        { weight: 5, arbitrary: fc.constant('application/json') },
        fc.constantFrom('text/plain', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/x+json', ''),
        fc.string({ maxLength: 20 }),
      ),
      auth: authVariants(apiKey, token),
      extraHeaders: fc.dictionary(
        fc.constantFrom('x-forwarded-for', 'accept', 'x-custom', 'origin'),
        fc.string({ maxLength: 10 }),
        {
          maxKeys: 2,
        },
      ),
      body: fc.oneof(
        {
          weight: 3,
          arbitrary: mutate(validData, required, extraMutations, accepted).map((data) => JSON.stringify({ data })),
        },
        jsonText,
        fc.constant(undefined),
        fc.record({ data: fc.constant(validData), junk: fc.jsonValue({ maxDepth: 1 }) }).map((b) => JSON.stringify(b)),
      ),
    })
    .map(
      ({ method, contentType, auth, extraHeaders, body }): RawRequest => ({
        method,
        headers: { ...extraHeaders, ...auth, ...(contentType ? { 'content-type': contentType } : {}) },
        body,
      }),
    );

export interface EnvelopeCheck {
  httpStatus: number;
  contentType: string | undefined;
  body: unknown;
}

/** Asserts the contract's error envelope; returns the status, or throws a readable error. */
export const assertErrorEnvelope = ({ httpStatus, contentType, body }: EnvelopeCheck): ErrorStatus => {
  const fail = (why: string) => {
    throw new Error(`${why}: HTTP ${httpStatus} ${JSON.stringify(body)}`);
  };
  if (!contentType?.startsWith('application/json')) fail(`content type ${contentType}`);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) fail('body is not an object');
  const record = body as Record<string, unknown>;
  if (Object.keys(record).join() !== 'error') fail('top-level keys are not exactly [error]');
  const error = record.error as Record<string, unknown>;
  const extra = Object.keys(error).filter((key) => !['message', 'status', 'details'].includes(key));
  if (extra.length) fail(`unexpected error keys ${extra}`);
  if (typeof error.message !== 'string' || !error.message) fail('message is not a non-empty string');
  const status = error.status as ErrorStatus;
  if (!(status in ERROR_HTTP_STATUS)) fail(`unknown status ${String(status)}`);
  if (ERROR_HTTP_STATUS[status] !== httpStatus) fail(`HTTP ${httpStatus} does not match ${status}`);
  if (httpStatus >= 500) fail('a bad request produced a 5xx');
  return status;
};

/**
 * Like fc.assert over an async property, but runs the generated cases `concurrency` at a time
 * (over HTTP one case waits mostly on I/O). No shrinking: a failure names the seed, the case
 * index and the input, and `FUZZ_SEED=<seed>` replays the same cases.
 */
export const assertConcurrently = async <T>(
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<unknown>,
  { numRuns = FUZZ_RUNS, concurrency = 8 }: { numRuns?: number; concurrency?: number } = {},
): Promise<void> => {
  const seed = FUZZ_SEED;
  const cases = fc.sample(arbitrary, { numRuns, seed });
  const failures: string[] = [];
  await pMap(
    cases.entries(),
    async ([index, value]) => {
      if (failures.length > 0) return;
      try {
        await predicate(value);
      } catch (error) {
        failures.push(`case ${index} (FUZZ_SEED=${seed}): ${(error as Error).message}\ninput: ${fc.stringify(value)}`);
      }
    },
    { concurrency },
  );
  if (failures.length > 0) throw new Error(failures[0]);
};

const unsealedCursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * Values a forger puts in a key part of a cursor (a DynamoDB LastEvaluatedKey, sealed):
 * empty, other users', oversized, wrong types, odd text.
 */
const cursorPart = fc.oneof(
  fc.constantFrom('', ' ', '#', 'H#acme#bob', 'DOC#acme#doc-1', 'ORG#acme', 'x'.repeat(2100), '\u0000', '\ud800'),
  fc.constantFrom(
    '2026-01-01T00:00:00.000Z#',
    '2026-01-01T00:00:00.000Z#12',
    `9999-99-99T99:99:99.999Z#${'9'.repeat(40)}`,
  ),
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.constant(null),
  fc.object({ maxDepth: 1 }),
);

/**
 * Cursors a forger makes from a real one (`valid`, opened): any text, any JSON, the real one
 * altered. `seal` seals a key as the service does (with its key, as if it had leaked: what
 * opens is still checked whole); any JSON is also sent unsealed, as cursors once were.
 */
export const forgedCursor = (valid: Record<string, unknown>, seal: (key: unknown) => string) =>
  fc.oneof(
    // Any text at all.
    fc.string({ minLength: 1, maxLength: 200 }),
    fc.base64String({ minLength: 1, maxLength: 200 }).map((text) => text.replace(/=+$/, '') || 'A'),
    // Any JSON, unsealed and sealed.
    fc.json({ maxDepth: 3 }).map((json) => unsealedCursor(JSON.parse(json))),
    fc.json({ maxDepth: 3 }).map((json) => seal(JSON.parse(json))),
    // The real key, unsealed (what a cursor was before it was sealed).
    fc.constant(unsealedCursor(valid)),
    // The real cursor with one part replaced (the forger's likeliest try).
    fc
      .tuple(fc.constantFrom(...Object.keys(valid)), cursorPart)
      .map(([name, value]) => seal({ ...valid, [name]: value })),
    // The real cursor with parts replaced, removed or added.
    fc
      .record({
        replace: fc.dictionary(fc.constantFrom(...Object.keys(valid)), cursorPart, { maxKeys: 3 }),
        remove: fc.subarray(Object.keys(valid)),
        add: fc.dictionary(fc.constantFrom('pk', 'sk', 'entryPk', 'entrySk', 'x', '__proto__'), cursorPart, {
          maxKeys: 2,
        }),
      })
      .map(({ replace, remove, add }) => {
        const key: Record<string, unknown> = { ...valid, ...replace };
        for (const name of remove) delete key[name];
        for (const [name, value] of Object.entries(add)) Object.defineProperty(key, name, { value, enumerable: true });
        return seal(key);
      }),
  );
