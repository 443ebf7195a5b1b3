import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { UNAUTHENTICATED_MESSAGE } from '#shared/api/errors.js';
import { hashToken } from '#shared/auth/credential.js';
import { type LocalService, rawRequest, startLocalService } from '../support/local-service.js';
import { addCredential, callAs, gatedConsumer, PATHS, type TestCredential, waitForMigration } from './support.js';

// Over HTTP against the local server: who may call what, and that no organization reaches
// another's data through any route.
let service: LocalService;
const gate = gatedConsumer();
const creds: Record<'a' | 'b' | 'star' | 'revoked' | 'expired' | 'future', TestCredential> = {} as never;

beforeAll(async () => {
  service = await startLocalService({ consumer: gate.consumer });
  creds.a = await addCredential(service, 'ak_org_a', ['org-a']);
  creds.b = await addCredential(service, 'ak_org_b', ['org-b']);
  creds.star = await addCredential(service, 'ak_star', '*');
  creds.revoked = await addCredential(service, 'ak_revoked', ['org-a'], { revokedAt: new Date().toISOString() });
  creds.expired = await addCredential(service, 'ak_expired', ['org-a'], { expiresAt: '2020-01-01T00:00:00.000Z' });
  creds.future = await addCredential(service, 'ak_future', ['org-a'], { expiresAt: '2999-01-01T00:00:00.000Z' });
});
afterAll(async () => {
  gate.open();
  await service?.close();
});

describe('the auth matrix on every route', () => {
  let migrationId: string;
  beforeAll(async () => {
    const started = await callAs(service, creds.a, PATHS.migrate, {
      organizationId: 'org-a',
      documentId: 'matrix-src',
      newDocumentId: 'matrix-dst',
    });
    migrationId = (started.body.result!.data as { migrationId: string }).migrationId;
    await waitForMigration(service, creds.a, 'org-a', migrationId);
  });

  // A valid org-a body per route; migrate uses fresh documents per call so that each accepted
  // call starts (and finishes) its own migration.
  let n = 0;
  const bodies = (): Record<keyof typeof PATHS, Record<string, unknown>> => {
    n += 1;
    return {
      set: { organizationId: 'org-a', userIds: ['u1'], documentIds: ['matrix'], config: { inbox: 'MINE' } },
      get: { organizationId: 'org-a', userId: 'u1', documentIds: ['matrix'] },
      migrate: { organizationId: 'org-a', documentId: `m-${n}`, newDocumentId: `m-${n}-new` },
      status: { organizationId: 'org-a', migrationId },
    };
  };
  const unauthenticated: [string, () => TestCredential | undefined][] = [
    ['no headers', () => undefined],
    ['the key alone', () => ({ apiKey: creds.a.apiKey, token: undefined as unknown as string })],
    ['the token alone', () => ({ apiKey: undefined as unknown as string, token: creds.a.token })],
    ['an unknown key', () => ({ apiKey: 'ak_nobody', token: creds.a.token })],
    ['a wrong token', () => ({ apiKey: creds.a.apiKey, token: `${creds.a.token}x` })],
    ["another credential's token", () => ({ apiKey: creds.a.apiKey, token: creds.b.token })],
    ['a revoked credential', () => creds.revoked],
    ['an expired credential', () => creds.expired],
    ['an empty key and token', () => ({ apiKey: '', token: '' })],
  ];
  const routes = Object.keys(PATHS) as (keyof typeof PATHS)[];

  test.each(routes)(
    '%s: every kind of bad credential is 401 with one message, even with an invalid body',
    async (route) => {
      for (const [why, credential] of unauthenticated) {
        for (const data of [bodies()[route], { nonsense: true }]) {
          const response = await callAs(service, credential(), PATHS[route], data);
          expect({ why, status: response.status, body: response.body }).toEqual({
            why,
            status: 401,
            body: { error: { status: 'UNAUTHENTICATED', message: UNAUTHENTICATED_MESSAGE } },
          });
        }
      }
    },
  );

  test.each(routes)(
    '%s: a credential of another organization is 403; granted ones (listed, "*", future expiry) pass',
    async (route) => {
      const denied = await callAs(service, creds.b, PATHS[route], bodies()[route]);
      expect(denied.status).toBe(403);
      expect(denied.body.error?.status).toBe('PERMISSION_DENIED');
      for (const credential of [creds.a, creds.star, creds.future]) {
        const response = await callAs(service, credential, PATHS[route], bodies()[route]);
        expect({ apiKey: credential.apiKey, status: response.status }).toEqual({
          apiKey: credential.apiKey,
          status: 200,
        });
      }
    },
  );

  test('unknown paths answer 404 whatever the credential: they reveal nothing either way', async () => {
    for (const credential of [undefined, creds.a, creds.revoked]) {
      const response = await callAs(service, credential, '/v2/admin/credentials', {});
      expect(response.status).toBe(404);
      expect(response.body.error?.status).toBe('NOT_FOUND');
    }
  });
});

describe('organizations are isolated on every route', () => {
  test('same user and document ids in two organizations never share an entry', async () => {
    const set = (c: TestCredential, org: string, inbox: string) =>
      callAs(service, c, PATHS.set, {
        organizationId: org,
        userIds: ['same-user'],
        documentIds: ['same-doc'],
        config: { inbox },
      });
    expect((await set(creds.a, 'org-a', 'ALL')).status).toBe(200);
    expect((await set(creds.b, 'org-b', 'NONE')).status).toBe(200);
    const get = async (c: TestCredential, org: string) =>
      (await callAs(service, c, PATHS.get, { organizationId: org, userId: 'same-user', documentIds: ['same-doc'] }))
        .body.result?.data;
    expect(await get(creds.a, 'org-a')).toMatchObject([{ config: { inbox: 'ALL' } }]);
    expect(await get(creds.b, 'org-b')).toMatchObject([{ config: { inbox: 'NONE' } }]);
    // Neither can read or write the other's, whatever ids the body names.
    expect((await get(creds.a, 'org-b')) ?? 'denied').toBe('denied');
    expect((await set(creds.b, 'org-a', 'MINE')).status).toBe(403);
    expect(await get(creds.a, 'org-a')).toMatchObject([{ config: { inbox: 'ALL' } }]);
  });

  test("a migration moves its own organization's entries only; its status is 404 to everyone else's organization", async () => {
    for (const [c, org] of [
      [creds.a, 'org-a'],
      [creds.b, 'org-b'],
    ] as const) {
      await callAs(service, c, PATHS.set, {
        organizationId: org,
        userIds: ['u1', 'u2'],
        documentIds: ['iso-src'],
        config: { email: 'ALL' },
      });
    }
    gate.close();
    const startedA = await callAs(service, creds.a, PATHS.migrate, {
      organizationId: 'org-a',
      documentId: 'iso-src',
      newDocumentId: 'iso-dst',
    });
    const idA = (startedA.body.result!.data as { migrationId: string }).migrationId;
    // Locks are per organization: the same documents in org-b are free while org-a's is active.
    const startedB = await callAs(service, creds.b, PATHS.migrate, {
      organizationId: 'org-b',
      documentId: 'iso-dst',
      newDocumentId: 'iso-src',
    });
    expect(startedB.status).toBe(200);
    const idB = (startedB.body.result!.data as { migrationId: string }).migrationId;
    // org-b cannot start org-a's migrations, nor see org-a's in any way.
    expect(
      (
        await callAs(service, creds.b, PATHS.migrate, {
          organizationId: 'org-a',
          documentId: 'iso-src',
          newDocumentId: 'x',
        })
      ).status,
    ).toBe(403);
    const probe = async (c: TestCredential, org: string, id: string) => {
      const r = await callAs(service, c, PATHS.status, { organizationId: org, migrationId: id });
      return `${r.status} ${r.body.error?.status ?? r.body.result?.status}`;
    };
    expect(await probe(creds.b, 'org-b', idA)).toBe('404 NOT_FOUND');
    expect(await probe(creds.b, 'org-a', idA)).toBe('403 PERMISSION_DENIED');
    expect(await probe(creds.star, 'org-b', idA)).toBe('404 NOT_FOUND');
    expect(await probe(creds.star, 'org-a', idA)).toBe('200 success');
    // The unknown-id answer is the same as the other-organization answer: no oracle.
    const unknown = await callAs(service, creds.b, PATHS.status, { organizationId: 'org-b', migrationId: '01UNKNOWN' });
    const foreign = await callAs(service, creds.b, PATHS.status, { organizationId: 'org-b', migrationId: idA });
    expect(foreign.body).toEqual(unknown.body);

    gate.open();
    expect(await waitForMigration(service, creds.a, 'org-a', idA)).toMatchObject({ status: 'completed', moved: 2 });
    expect(await waitForMigration(service, creds.b, 'org-b', idB)).toMatchObject({ status: 'completed', moved: 0 });
    // org-b's source was untouched by org-a's migration, and the reverse.
    const get = async (c: TestCredential, org: string, doc: string) =>
      (
        (await callAs(service, c, PATHS.get, { organizationId: org, userId: 'u1', documentIds: [doc] })).body.result!
          .data as { config: unknown }[]
      )[0]?.config;
    expect(await get(creds.a, 'org-a', 'iso-src')).toEqual({});
    expect(await get(creds.a, 'org-a', 'iso-dst')).toEqual({ email: 'ALL' });
    expect(await get(creds.b, 'org-b', 'iso-src')).toEqual({ email: 'ALL' });
  });
});

describe('credential records', () => {
  test('store only the SHA-256 of each token: no token appears anywhere in the table', async () => {
    const { Items = [] } = await service.doc.send(new ScanCommand({ TableName: service.tables.credentials }));
    const tokens = [...Object.values(creds).map((c) => c.token), service.token];
    const keys = [...Object.values(creds).map((c) => c.apiKey), service.apiKey];
    expect(Items.map((item) => item.apiKey).sort()).toEqual([...keys].sort());
    const text = JSON.stringify(Items);
    for (const token of tokens) expect(text).not.toContain(token);
    for (const item of Items) {
      expect(item.tokenHash).toMatch(/^[0-9a-f]{64}$/);
      const index = keys.indexOf(item.apiKey as string);
      expect(item.tokenHash).toBe(hashToken(tokens[index] as string));
      expect(Object.keys(item).filter((k) => /token/i.test(k))).toEqual(['tokenHash']);
    }
  });
});

describe('hostile input over HTTP', () => {
  const send = (
    headers: [string, string][],
    body: string | Buffer = JSON.stringify({ data: { organizationId: 'org-a', userId: 'u1' } }),
  ) =>
    rawRequest(`${service.baseUrl}${PATHS.get}`, { headers: [['content-type', 'application/json'], ...headers], body });
  const as = (apiKey: string, token: string): [string, string][] => [
    ['x-service-api-key', apiKey],
    ['x-service-auth-token', token],
  ];

  // Header values as they travel: Node writes (and reads) a header as latin-1 bytes, so
  // non-ASCII text arrives as bytes 0x80-0xFF. Lengths up to Node's header limit (16 KiB).
  test.each([
    ['a key over DynamoDB key limit (2,048 bytes)', () => as(`ak_${'x'.repeat(3000)}`, creds.a.token)],
    ['a key of 12,000 characters', () => as('k'.repeat(12_000), creds.a.token)],
    ['a key of UTF-8 bytes', () => as(Buffer.from('ak_ключ_😀').toString('latin1'), creds.a.token)],
    ['a key of bytes that are not UTF-8', () => as('ak_\xff\xfe\x80', creds.a.token)],
    ['a key with a space and a tab inside', () => as('ak_org a\tb', creds.a.token)],
    [
      'a key repeated (joined with a comma)',
      () => [...as(creds.a.apiKey, creds.a.token), ['x-service-api-key', creds.a.apiKey]] as [string, string][],
    ],
    ['a token of 12,000 characters', () => as(creds.a.apiKey, 't'.repeat(12_000))],
    ['a token of bytes that are not UTF-8', () => as(creds.a.apiKey, `${creds.a.token}\xff`)],
  ])('%s: 401 with the unknown-key message, never 5xx', async (_why, headers) => {
    const response = await send(headers());
    expect({ status: response.status, body: JSON.parse(response.text) }).toEqual({
      status: 401,
      body: { error: { status: 'UNAUTHENTICATED', message: UNAUTHENTICATED_MESSAGE } },
    });
  });

  test('a body that is not valid UTF-8 is 400 INVALID_ARGUMENT: its bytes are never replaced, so never stored', async () => {
    const setUser = (userId: Buffer) =>
      rawRequest(`${service.baseUrl}${PATHS.set}`, {
        headers: [['content-type', 'application/json'], ...as(creds.a.apiKey, creds.a.token)],
        body: Buffer.concat([
          Buffer.from('{"data":{"organizationId":"org-a","userIds":["'),
          userId,
          Buffer.from('"],"documentIds":["utf8"],"config":{"inbox":"NONE"}}}'),
        ]),
      });
    // Two different byte strings that both used to become "u\uFFFD": one entry for two ids.
    for (const userId of [Buffer.from([0x75, 0xff]), Buffer.from([0x75, 0xfe])]) {
      const response = await setUser(userId);
      expect({ status: response.status, body: JSON.parse(response.text) }).toEqual({
        status: 400,
        body: { error: { status: 'INVALID_ARGUMENT', message: 'Request body must be valid UTF-8.' } },
      });
    }
    const stored = await callAs(service, creds.a, PATHS.get, {
      organizationId: 'org-a',
      userId: 'u\uFFFD',
      documentIds: ['utf8'],
    });
    expect(stored.body.result?.data).toMatchObject([{ config: {} }]);
  });

  // Ids that are names of Object's properties: a map keyed by them must stay a map (stored,
  // answered and counted), never a prototype nor a class instance the SDK refuses.
  test.each(['constructor', 'prototype', 'valueof', 'hasownproperty'])(
    'a policy category named %s is stored and answered like any other, never 5xx',
    async (id) => {
      const organizationId = `org-a-${id}`;
      const categories = JSON.parse(`{"comment":{"label":"Comments"},${JSON.stringify(id)}:{"label":"Named ${id}"}}`);
      const set = await service.call('/v2/organizations/policy/set', { organizationId, policy: { categories } });
      expect({ status: set.status, error: set.body.error }).toEqual({ status: 200, error: undefined });
      const got = await service.call('/v2/organizations/policy/get', { organizationId });
      const data = got.body.result?.data as { policy: { categories: Record<string, { label: string }> } } | undefined;
      const stored = data?.policy.categories ?? {};
      expect(Object.keys(stored).sort()).toEqual(['comment', id].sort());
      expect(Object.getOwnPropertyDescriptor(stored, id)?.value).toEqual({ label: `Named ${id}` });
    },
  );

  test.each([
    ['__proto__', /must not hold a key named __proto__/],
    ['toString', /each key of categories must be a category id \(1 to 64 characters/],
  ])('a policy category key %s is refused naming the rule, and nothing is stored', async (id, message) => {
    const organizationId = `org-a-refused-${id}`;
    const categories = JSON.parse(`{"comment":{"label":"Comments"},${JSON.stringify(id)}:{"label":"Named"}}`);
    const set = await service.call('/v2/organizations/policy/set', { organizationId, policy: { categories } });
    expect(set.status).toBe(400);
    expect(set.body.error?.status).toBe('INVALID_ARGUMENT');
    expect(set.body.error?.message).toMatch(message);
    const got = await service.call('/v2/organizations/policy/get', { organizationId });
    expect(got.body.result?.data).toMatchObject({ version: 0 });
  });

  test.each([
    ['plainly', '{"data":{"organizationId":"org-a","userId":"u1","__proto__":{}}}'],
    ['with escapes', '{"data":{"organizationId":"org-a","userId":"u1","\\u005f\\u005fproto__":{}}}'],
  ])('a key __proto__ spelled %s anywhere in a body is 400 naming it', async (_how, body) => {
    const response = await rawRequest(`${service.baseUrl}${PATHS.get}`, {
      headers: [['content-type', 'application/json'], ...as(creds.a.apiKey, creds.a.token)],
      body,
    });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text).error.message).toMatch(/must not hold a key named __proto__/);
  });

  test.each([
    'application/json ; charset=utf-8',
    'Application/JSON;Charset=UTF-8',
    'application/json ;charset="utf-8"',
  ])('content type %s is accepted', async (contentType) => {
    const response = await rawRequest(`${service.baseUrl}${PATHS.get}`, {
      headers: [['content-type', contentType], ...as(creds.a.apiKey, creds.a.token)],
      body: JSON.stringify({ data: { organizationId: 'org-a', userId: 'u1' } }),
    });
    expect(response.status).toBe(200);
  });
});
