import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { schedule as scheduleSchema } from '#shared/schedules/schema.js';
import { assertConcurrently, FUZZ_RUNS, FUZZ_TIMEOUT_MS, HTTP_FUZZ_RUNS } from '../support/fuzz/runs.js';
import { createLinks, tokenOf } from '../support/links.js';
import { type LocalService, rawRequest, startLocalService } from '../support/local-service.js';

/**
 * The pages of the links as an attacker sees them, over HTTP against the twin: no key needed, so
 * anything may arrive. Tokens (real ones, altered ones, random text, oversized, with extra path
 * segments), any method, any content type, any body (random bytes, forms of unknown fields or
 * values, broken multipart). Every answer is one of the pages' statuses with the pages' headers,
 * never a 5xx, and nothing is written: the tables are as they were.
 */
let service: LocalService;
let tokens: string[];

beforeAll(async () => {
  service = await startLocalService();
  const links = await createLinks(service, {
    organizationId: 'fuzz-org',
    userIds: ['u1', 'u2'],
    documentId: 'doc-1',
    category: 'comment',
  });
  // One token of each page (each opens only its own): u1's preference page, u2's unsubscribe.
  tokens = [tokenOf(links.u1?.preferencesUrl as string), tokenOf(links.u2?.unsubscribeUrl as string)];
}, 60_000);
afterAll(async () => {
  await service?.close();
});

const scanAll = async (table: string) => (await service.doc.send(new ScanCommand({ TableName: table }))).Items ?? [];

const flip = (token: string, at: number) => {
  const index = at % token.length;
  const char = token[index] === 'A' ? 'B' : 'A';
  return `${token.slice(0, index)}${char}${token.slice(index + 1)}`;
};

const tokenArb = fc.oneof(
  { weight: 3, arbitrary: fc.nat({ max: 1 }).map((i) => () => tokens[i] as string) },
  fc.tuple(fc.nat({ max: 1 }), fc.nat()).map(
    ([i, at]) =>
      () =>
        flip(tokens[i] as string, at),
  ),
  fc.string({ minLength: 1, maxLength: 60 }).map((text) => () => encodeURIComponent(text)),
  fc.stringMatching(/^[A-Za-z0-9_-]{1,40}(\.[A-Za-z0-9_-]{0,40}){0,6}$/).map((text) => () => text),
  fc.integer({ min: 4000, max: 9000 }).map((length) => () => 'e'.repeat(length)),
  fc.nat({ max: 1 }).map((i) => () => `${tokens[i]}/extra`),
  fc.nat({ max: 1 }).map((i) => () => `${tokens[i]}%2F..%2F`),
);

// Fields a form may hold: the pages' own names with wrong values, unknown names, odd bytes.
const field = fc.tuple(
  fc.oneof(
    fc.constantFrom(
      'List-Unsubscribe',
      'scope',
      'org:email',
      'was:org:email',
      'org:email~ALL',
      'org:email~default',
      'doc/comment:slack',
      'org/x:fax',
    ),
    // The schedule part's own names (and near misses).
    fc.constantFrom('schedule:timeZone', 'was:schedule:timeZone', 'was:schedule:quietHours', 'q0d', 'q6s'),
    fc.constantFrom('q0e', 'q1c', 'q2r', 'q7d', 'q0:day', 'quiet:0:day'),
    fc.string({ maxLength: 12 }),
  ),
  fc.oneof(
    fc.constantFrom('One-Click', 'ALL', 'organization', 'default', 'SOMETIMES', ''),
    fc.constantFrom('Europe/Berlin', 'Mars/Olympus', 'mon', 'someday', '22:00', '25:00', 'email', 'fax', 'yes'),
    fc.string({ maxLength: 12 }),
  ),
);
// Always one field that no page has: a form that could be valid would write.
const form = fc
  .array(field, { maxLength: 6 })
  .map((fields) => [...fields, ['bogus-field', 'x'] as [string, string]])
  .map((fields) => fields.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&'));

const body = fc.oneof(
  {
    weight: 3,
    arbitrary: form.map((text) => ({ type: 'application/x-www-form-urlencoded', body: text as string | Buffer })),
  },
  form.map((text) => ({ type: 'application/x-www-form-urlencoded; charset=utf-8', body: `${text}%FF%FE` })),
  fc
    .uint8Array({ maxLength: 200 })
    .map((bytes) => ({ type: 'application/x-www-form-urlencoded', body: Buffer.from(bytes) })),
  fc.constantFrom(
    {
      type: 'multipart/form-data; boundary=x',
      body: '--x\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--x',
    },
    {
      type: 'multipart/form-data; boundary=x',
      body: '--x\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\nhello\r\n--x--\r\n',
    },
    { type: 'multipart/form-data', body: 'no boundary' },
    { type: 'application/json', body: '{"List-Unsubscribe":"One-Click"}' },
    { type: 'text/plain', body: 'List-Unsubscribe=One-Click&x=1' },
    { type: '', body: 'List-Unsubscribe=One-Click&x=1' },
  ),
  fc.integer({ min: 65 * 1024, max: 200 * 1024 }).map((size) => ({
    type: 'application/x-www-form-urlencoded',
    body: `List-Unsubscribe=One-Click&pad=${'a'.repeat(size)}`,
  })),
);

// 303: a save of the preference page that changes nothing (an empty form) answers the page again.
const PAGE_STATUSES = [200, 303, 400, 404, 405];

test(
  `${FUZZ_RUNS} hostile requests to /u/ and /p/: a page status and the pages' headers, never a 5xx, nothing written`,
  async () => {
    const before = {
      config: await scanAll(service.tables.config),
      migrations: await scanAll(service.tables.migrations),
    };
    const seen = new Set<number>();
    await assertConcurrently(
      fc.tuple(
        fc.constantFrom('/u/', '/p/'),
        tokenArb,
        fc.constantFrom('GET', 'POST', 'POST', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'),
        body,
      ),
      async ([prefix, token, method, { type, body: payload }]) => {
        const sent = method === 'GET' || method === 'HEAD' ? undefined : payload;
        const answer = await rawRequest(`${service.baseUrl}${prefix}${token()}`, {
          method,
          headers: type && sent !== undefined ? [['content-type', type]] : [],
          ...(sent === undefined ? {} : { body: sent }),
        });
        seen.add(answer.status);
        // A path the twin routes elsewhere (a segment that resolves out of the prefix) answers JSON 404.
        if (answer.headers['content-type'] === 'application/json') {
          expect(answer.status).toBe(404);
          return;
        }
        expect(PAGE_STATUSES).toContain(answer.status);
        expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(answer.headers['content-security-policy']).toMatch(/^default-src 'none'/);
        expect(answer.headers['x-content-type-options']).toBe('nosniff');
        expect(answer.headers['referrer-policy']).toBe('no-referrer');
        expect(answer.headers['cache-control']).toBe('no-store');
      },
    );
    expect({
      config: await scanAll(service.tables.config),
      migrations: await scanAll(service.tables.migrations),
    }).toEqual(before);
    // The generator reaches every answer: the page, the bad form, the unknown link, the odd method.
    expect([...seen].sort()).toEqual(expect.arrayContaining([200, 400, 404, 405]));
  },
  FUZZ_TIMEOUT_MS,
);

// The schedule part of the preference page, as a person's form or an attacker's: only its own
// fields (and a valid setting now and then), so that some forms are valid and write. Every answer
// is the 303 of a save or a 400 page; a 400 changed nothing; what a 303 stored is a schedule that
// schedule/set itself accepts.
const clock = fc.oneof(
  fc.constantFrom('22:00', '07:00', '7:30', '00:00', '23:59', '24:00', '12:60', '', ' 9:05 '),
  fc.string({ maxLength: 8 }),
);
const scheduleValue = (part: string) => {
  switch (part) {
    case 'day':
      return fc.oneof(fc.constantFrom('mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'), fc.string({ maxLength: 6 }));
    case 'channel':
      return fc.oneof(fc.constantFrom('inbox', 'email', 'slack'), fc.string({ maxLength: 6 }));
    case 'remove':
      return fc.constantFrom('on', 'yes', '');
    default:
      return clock;
  }
};
const ruleField = fc
  .tuple(fc.nat({ max: 7 }), fc.constantFrom('day', 'day', 'day', 'start', 'end', 'channel', 'channel', 'remove'))
  .chain(([n, part]) => scheduleValue(part).map((value): [string, string] => [`q${n}${part[0]}`, value]));
const zoneField = fc
  .oneof(
    fc.constantFrom('Europe/Berlin', 'Asia/Kolkata', 'UTC', 'Etc/GMT+5', 'US/Eastern', ''),
    fc.constantFrom('europe/berlin', 'Mars/Olympus', '+01:00', 'SystemV/AST4', 'Europe/Berlin/x', ' UTC '),
    fc.string({ maxLength: 70 }),
  )
  .map((zone): [string, string] => ['schedule:timeZone', zone]);
const scheduleForm = fc
  .tuple(
    fc.array(zoneField, { minLength: 0, maxLength: 2 }),
    fc.array(ruleField, { maxLength: 20 }),
    fc.array(
      fc.constantFrom<[string, string]>(
        ['was:schedule:timeZone', 'Europe/Berlin'],
        ['was:schedule:quietHours', ''],
        ['was:schedule:quietHours', 'mon/22:00/07:00/email'],
        ['org:email', 'NONE'],
        ['org:email', 'SOMETIMES'],
      ),
      { maxLength: 2 },
    ),
  )
  .map(([zones, rules, others]) => [...zones, ...rules, ...others]);

test(
  `${HTTP_FUZZ_RUNS} forms of the preference page's schedule (link-schedule-form.test.ts parses more in process): a save or a 400 page; a 400 writes nothing; what is saved schedule/set accepts`,
  async () => {
    const url = `${service.baseUrl}/p/${tokens[0]}`;
    const scheduleOf = async () => {
      const answer = await service.call('/v2/notifications/schedule/get', { organizationId: 'fuzz-org', userId: 'u1' });
      return (answer.body.result?.data as { schedule: unknown } | undefined)?.schedule;
    };
    const seen = new Set<number>();
    let saved = 0;
    await fc.assert(
      fc.asyncProperty(scheduleForm, async (fields) => {
        const before = await scanAll(service.tables.config);
        const answer = await rawRequest(url, {
          method: 'POST',
          headers: [['content-type', 'application/x-www-form-urlencoded']],
          body: new URLSearchParams(fields).toString(),
        });
        seen.add(answer.status);
        expect([303, 400]).toContain(answer.status);
        expect(answer.headers['cache-control']).toBe('no-store');
        if (answer.status === 400) {
          expect(await scanAll(service.tables.config)).toEqual(before);
          return;
        }
        const stored = await scheduleOf();
        if (stored !== null) {
          saved += 1;
          expect(scheduleSchema().parse(stored)).toEqual(stored);
        }
      }),
      { numRuns: HTTP_FUZZ_RUNS },
    );
    // The generator reaches both: saves that wrote a schedule, and refusals.
    expect([...seen].sort()).toEqual([303, 400]);
    expect(saved).toBeGreaterThan(0);
  },
  FUZZ_TIMEOUT_MS * 3,
);
