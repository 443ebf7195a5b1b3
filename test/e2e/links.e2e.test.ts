import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { sealLink } from '#shared/links/token.js';
import { waitForMigration } from '../reliability/support.js';
import { eventually } from '../support/eventually.js';
import { createLinks, LINK_PATHS, oneClick, openPage, postForm, tokenOf, twinKeyring } from '../support/links.js';
import { type LocalService, rawRequest, startLocalService } from '../support/local-service.js';

// Contract 13 through the local twin, over HTTP: links from links/create, the one-click
// unsubscribe of RFC 8058 and its page, the preference page, revocation (links/revoke and an
// erasure), a migrated document followed through a chain, the same 404 page for every failure,
// changes recorded as `link` in the history; and not one log line of the whole flow holds a token.
let service: LocalService;
const logged: string[] = [];
let stdout: ReturnType<typeof jest.spyOn> | undefined;

beforeAll(async () => {
  // Every function logs at DEBUG, and every line the twin or a function writes is kept.
  stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    logged.push(String(chunk));
    return true;
  });
  service = await startLocalService({
    env: { POWERTOOLS_LOG_LEVEL: 'DEBUG', LINK_KEYS_CACHE_SECONDS: '0' },
    log: (line) => logged.push(line),
  });
}, 60_000);
afterAll(async () => {
  await service?.close();
  stdout?.mockRestore();
});

const ORG = 'links-org';
const tokens: string[] = [];
const remember = (url: string) => {
  tokens.push(tokenOf(url));
  return url;
};

const get = async (userId: string, extra: Record<string, unknown> = {}) => {
  const response = await service.call('/v2/notifications/config/get', { organizationId: ORG, userId, ...extra });
  return (
    response.body.result?.data as { config: Record<string, string>; categories?: Record<string, unknown> }[] | undefined
  )?.[0] as {
    config: Record<string, string>;
    categories?: Record<string, unknown>;
  };
};

const history = async (userId: string) => {
  const response = await service.call('/v2/notifications/config/history', { organizationId: ORG, userId });
  const data = response.body.result?.data as
    | { changes: { cause: string; changedBy: string; documentId: string | null }[] }
    | undefined;
  return data?.changes ?? [];
};

/**
 * A comment link of `documentId` for `userId`, one-clicked with the widest category scope: no
 * comment email on any document. Answers the link.
 */
const unsubscribeFromCategory = async (userId: string, documentId: string) => {
  const links = await createLinks(service, { organizationId: ORG, userIds: [userId], documentId, category: 'comment' });
  const url = remember(links[userId]?.unsubscribeUrl as string);
  expect((await oneClick(url, 'List-Unsubscribe=One-Click&scope=category')).status).toBe(200);
  expect((await get(userId, { category: 'comment' })).categories).toEqual({ comment: { email: 'NONE' } });
  return url;
};

describe('links/create', () => {
  test('one set of links per distinct user: URLs on the address called, the two RFC 8058 headers, the expiry', async () => {
    const links = await createLinks(service, { organizationId: ORG, userIds: ['ann', 'bo', 'ann'], documentId: 'd1' });
    expect(Object.keys(links)).toEqual(['ann', 'bo']);
    const ann = links.ann as (typeof links)[string];
    expect(ann.unsubscribeUrl.startsWith(`${service.baseUrl}/u/`)).toBe(true);
    expect(ann.preferencesUrl.startsWith(`${service.baseUrl}/p/`)).toBe(true);
    // One token per URL: the List-Unsubscribe URL's opens /u/ only, the preference URL's /p/ only.
    expect(tokenOf(ann.preferencesUrl)).not.toBe(tokenOf(ann.unsubscribeUrl));
    const offer = await openPage(ann.unsubscribeUrl);
    expect(offer.status).toBe(200);
    // Its page does not hand out the preference page either.
    expect(offer.html).not.toContain('href="../p/');
    expect((await openPage(`${service.baseUrl}/p/${tokenOf(ann.unsubscribeUrl)}`)).status).toBe(404);
    expect((await openPage(`${service.baseUrl}/u/${tokenOf(ann.preferencesUrl)}`)).status).toBe(404);
    // A token made before each URL had its own (no purpose) opens both, and its page links to the other.
    const now = Math.floor(Date.now() / 1000);
    const legacy = await sealLink(
      { organizationId: ORG, userId: 'ann', documentId: 'd1', channel: 'email', issuedAt: now, expiresAt: now + 3600 },
      await twinKeyring(service),
    );
    const legacyOffer = await openPage(`${service.baseUrl}/u/${legacy}`);
    expect(legacyOffer.html).toContain(`href="../p/${legacy}"`);
    expect((await openPage(`${service.baseUrl}/p/${legacy}`)).status).toBe(200);
    expect(ann.headers).toEqual({
      'List-Unsubscribe': `<${ann.unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    // 90 days by default, to the second.
    expect(Date.parse(ann.expiresAt) - Date.now()).toBeGreaterThan(90 * 86_400_000 - 60_000);
    expect(Date.parse(ann.expiresAt) - Date.now()).toBeLessThanOrEqual(90 * 86_400_000);
    // Nothing readable in a token: not the organization, the user or the document.
    const token = tokenOf(ann.unsubscribeUrl);
    const readable = token
      .split('.')
      .map((part) => Buffer.from(part, 'base64url').toString('latin1'))
      .join(' ');
    for (const id of [ORG, 'ann', 'd1']) expect(readable).not.toContain(id);
    remember(ann.unsubscribeUrl);
  });

  test.each([
    ['another host', 'evil.example'],
    ['another host on the port', 'evil.example:PORT'],
    ['empty', ''],
    ['not a host name', 'a b<>"'],
    ['a URL', 'http://evil.example/x'],
  ])('a Host header that is %s: refused (421), no links made, never a 5xx', async (_case, host) => {
    const response = await rawRequest(`${service.baseUrl}${LINK_PATHS.create}`, {
      headers: [
        ['host', host.replace('PORT', new URL(service.baseUrl).port)],
        ['content-type', 'application/json'],
        ...Object.entries(service.authHeaders()),
      ],
      body: JSON.stringify({ data: { organizationId: ORG, userIds: ['hosted'] } }),
    });
    expect(response.status).toBe(421);
    expect(response.text).not.toContain('/u/');
  });

  test("links are on the twin's own URL, whatever loopback name the request used", async () => {
    const response = await rawRequest(`${service.baseUrl}${LINK_PATHS.create}`, {
      headers: [
        ['host', `localhost:${new URL(service.baseUrl).port}`],
        ['content-type', 'application/json'],
        ...Object.entries(service.authHeaders()),
      ],
      body: JSON.stringify({ data: { organizationId: ORG, userIds: ['hosted'] } }),
    });
    expect(response.status).toBe(200);
    const links = JSON.parse(response.text).result.data.hosted as { unsubscribeUrl: string };
    expect(links.unsubscribeUrl.startsWith(`${service.baseUrl}/u/`)).toBe(true);
    remember(links.unsubscribeUrl);
  });

  test('a link made with locale de shows its pages in German, even to a browser that asks for French', async () => {
    const links = await createLinks(service, { organizationId: ORG, userIds: ['lena'], locale: 'de' });
    const ask = { headers: { 'accept-language': 'fr-FR,fr;q=0.9' } };
    const preferences = await openPage(remember(links.lena?.preferencesUrl as string), ask);
    expect(preferences.status).toBe(200);
    expect(preferences.html).toContain('<html lang="de" dir="ltr">');
    expect(preferences.html).toContain('<h1>Ihre Benachrichtigungseinstellungen</h1>');
    const offer = await openPage(remember(links.lena?.unsubscribeUrl as string), ask);
    expect(offer.html).toContain('<h1>E-Mail-Benachrichtigungen abbestellen</h1>');
    const arabic = await createLinks(service, { organizationId: ORG, userIds: ['lena'], locale: 'ar-EG' });
    const rtl = await openPage(remember(arabic.lena?.preferencesUrl as string));
    expect(rtl.html).toContain('<html lang="ar" dir="rtl">');
  });

  test('limits: expiresInDays 1 to 365, a category id, a channel, a locale', async () => {
    for (const bad of [
      { expiresInDays: 0 },
      { expiresInDays: 366 },
      { category: 'Not Valid' },
      { channel: 'sms' },
      { locale: 'not a tag' },
      { locale: 'x'.repeat(36) },
      { locale: 7 },
    ]) {
      const response = await service.call(LINK_PATHS.create, { organizationId: ORG, userIds: ['ann'], ...bad });
      expect(response.status).toBe(400);
      expect(response.body.error?.status).toBe('INVALID_ARGUMENT');
    }
  });
});

describe('one-click unsubscribe', () => {
  test('GET shows the choice and changes nothing; POST unsubscribes the link scope; repeating it is harmless', async () => {
    const links = await createLinks(service, { organizationId: ORG, userIds: ['cy'], documentId: 'd1' });
    const url = remember(links.cy?.unsubscribeUrl as string);
    const page = await openPage(url);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Email notifications about this document');
    expect(page.html).toContain('name="List-Unsubscribe" value="One-Click"');
    expect((await get('cy', { documentIds: ['d1'] })).config).toEqual({});

    for (let i = 0; i < 2; i++) {
      const done = await oneClick(url);
      expect(done.status).toBe(200);
      expect(done.html).toContain('You are unsubscribed');
    }
    expect((await get('cy', { documentIds: ['d1'] })).config).toEqual({ email: 'NONE' });
    const changes = await eventually(
      () => history('cy'),
      (found) => found.length > 0,
    );
    expect(changes).toEqual([expect.objectContaining({ cause: 'link', changedBy: 'link:k1', documentId: 'd1' })]);
  });

  test('a wider scope from the page: the category everywhere, or every email of the organization', async () => {
    const url = await unsubscribeFromCategory('di', 'd1');
    expect((await oneClick(url, 'List-Unsubscribe=One-Click&scope=organization')).status).toBe(200);
    expect((await get('di')).config).toEqual({ email: 'NONE' });
  });

  test('multipart/form-data is RFC 8058 too', async () => {
    const links = await createLinks(service, { organizationId: ORG, userIds: ['ed'] });
    const form = new FormData();
    form.set('List-Unsubscribe', 'One-Click');
    const done = await openPage(remember(links.ed?.unsubscribeUrl as string), { method: 'POST', body: form });
    expect(done.status).toBe(200);
    expect((await get('ed')).config).toEqual({ email: 'NONE' });
  });

  test('a body that is not the one-click form, or a scope the link cannot express: a 400 page, nothing written', async () => {
    const links = await createLinks(service, { organizationId: ORG, userIds: ['fay'] });
    const url = remember(links.fay?.unsubscribeUrl as string);
    for (const body of [
      '',
      'List-Unsubscribe=Two-Clicks',
      'List-Unsubscribe=One-Click&List-Unsubscribe=One-Click',
      'List-Unsubscribe=One-Click&scope=document',
      'List-Unsubscribe=One-Click&scope=category',
      'List-Unsubscribe=One-Click&scope=everything',
      'List-Unsubscribe=One-Click&extra=1',
      'List-Unsubscribe=One-Click%FF',
    ]) {
      const answer = await oneClick(url, body);
      expect({ body, status: answer.status }).toEqual({ body, status: 400 });
      expect(answer.html).toContain('Nothing was changed.');
      if (body.endsWith('scope=everything'))
        expect(answer.html).toContain(
          'The form may hold one scope, which must be one of: document, category, organization.',
        );
      if (body.endsWith('Two-Clicks'))
        expect(answer.html).toContain('The form must hold List-Unsubscribe=One-Click exactly once.');
    }
    const json = await openPage(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"List-Unsubscribe":"One-Click"}',
    });
    expect(json.status).toBe(400);
    expect((await get('fay')).config).toEqual({});
  });

  test('a channel the policy locks is not changed: 200 and a page that says why', async () => {
    const policy = await service.call('/v2/organizations/policy/set', {
      organizationId: ORG,
      policy: {
        categories: { security: { label: 'Security alerts', channels: { email: { value: 'ALL', locked: true } } } },
      },
    });
    expect(policy.status).toBe(200);
    const links = await createLinks(service, { organizationId: ORG, userIds: ['gus'], category: 'security' });
    const answer = await oneClick(remember(links.gus?.unsubscribeUrl as string));
    expect(answer.status).toBe(200);
    expect(answer.html).toContain('Nothing was changed');
    expect(answer.html).toContain('Security alerts');
    expect((await get('gus', { category: 'security' })).categories ?? {}).toEqual({});
  });
});

describe('the same 404 page for every failure, never a 5xx', () => {
  test('unknown, altered, expired, future, other-key, revoked and erased links', async () => {
    const keyring = await twinKeyring(service);
    const now = Math.floor(Date.now() / 1000);
    const scope = { organizationId: ORG, userId: 'hal', channel: 'email' as const };
    const expired = await sealLink({ ...scope, issuedAt: now - 100, expiresAt: now - 1 }, keyring);
    const future = await sealLink({ ...scope, issuedAt: now + 3600, expiresAt: now + 7200 }, keyring);
    const links = await createLinks(service, { organizationId: ORG, userIds: ['hal', 'ida'] });
    const good = tokenOf(links.hal?.unsubscribeUrl as string);
    // One character of the tag changed (to one it is not: compared with the character itself).
    const alteredAt = good.length - 3;
    const altered = `${good.slice(0, alteredAt)}${good[alteredAt] === 'A' ? 'B' : 'A'}${good.slice(alteredAt + 1)}`;
    const [header, , iv, ciphertext, tag] = good.split('.');
    const swapped = [header, '', iv, `${ciphertext}AA`, tag].join('.');

    expect((await service.call(LINK_PATHS.revoke, { organizationId: ORG, userIds: ['ida'] })).status).toBe(200);
    const revoked = tokenOf(links.ida?.unsubscribeUrl as string);
    tokens.push(good, revoked, expired, future);

    const pages = new Set<string>();
    for (const token of [
      'x',
      'a.b.c.d.e',
      altered,
      swapped,
      expired,
      future,
      revoked,
      'A'.repeat(5000),
      `${good}/more`,
    ]) {
      for (const prefix of ['/u/', '/p/']) {
        for (const method of ['GET', 'POST']) {
          const answer = await openPage(`${service.baseUrl}${prefix}${token}`, {
            method,
            ...(method === 'POST'
              ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' }
              : {}),
          });
          expect({ token: token.slice(0, 20), prefix, method, status: answer.status }).toEqual({
            token: token.slice(0, 20),
            prefix,
            method,
            status: 404,
          });
          pages.add(answer.html);
        }
      }
    }
    // One page, byte for byte, whatever the failure.
    expect(pages.size).toBe(1);
    // The good link still works: only the revoked user's stopped.
    expect((await openPage(`${service.baseUrl}/u/${good}`)).status).toBe(200);
  });

  test('an erasure of the user revokes the links made before it', async () => {
    const links = await createLinks(service, { organizationId: ORG, userIds: ['jo'] });
    const url = remember(links.jo?.preferencesUrl as string);
    expect((await openPage(url)).status).toBe(200);
    const started = await service.call('/v2/organizations/users/erase', { organizationId: ORG, userId: 'jo' });
    const erasureId = (started.body.result?.data as { erasureId: string } | undefined)?.erasureId as string;
    await eventually(
      () => service.call('/v2/organizations/users/erase/status', { organizationId: ORG, erasureId }),
      (status) => (status.body.result?.data as { status: string } | undefined)?.status === 'completed',
    );
    expect((await openPage(url)).status).toBe(404);
    // A link made after the erasure works (from the next second: tokens count whole seconds, and a
    // revocation covers the second it happened in).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const fresh = await createLinks(service, { organizationId: ORG, userIds: ['jo'] });
    expect((await openPage(remember(fresh.jo?.preferencesUrl as string))).status).toBe(200);
  });

  test('every page sends the security headers, whatever it answers', async () => {
    const links = await createLinks(service, { organizationId: ORG, userIds: ['kit'] });
    const url = remember(links.kit?.unsubscribeUrl as string);
    for (const answer of [
      await openPage(url),
      await oneClick(url, 'nope'),
      await openPage(`${service.baseUrl}/u/nope`),
      await openPage(url, { method: 'PUT' }),
      // The prefixes themselves, with and without the slash: the route's 404 page, not the API's JSON.
      ...(await Promise.all(['/u', '/u/', '/p', '/p/'].map((path) => openPage(`${service.baseUrl}${path}`)))),
    ]) {
      expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(answer.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-/);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }
  });
});

test('a link about a migrated document acts on the new document, through a chain of migrations', async () => {
  const links = await createLinks(service, { organizationId: ORG, userIds: ['lu'], documentId: 'm1' });
  for (const [from, to] of [
    ['m1', 'm2'],
    ['m2', 'm3'],
  ]) {
    const started = await service.call('/v2/organizations/documents/migrate', {
      organizationId: ORG,
      documentId: from,
      newDocumentId: to,
    });
    expect(started.status).toBe(200);
    await waitForMigration(
      service,
      undefined,
      ORG,
      (started.body.result?.data as { migrationId: string } | undefined)?.migrationId as string,
    );
  }
  expect((await oneClick(remember(links.lu?.unsubscribeUrl as string))).status).toBe(200);
  const [m1, m3] =
    ((
      await service.call('/v2/notifications/config/get', {
        organizationId: ORG,
        userId: 'lu',
        documentIds: ['m1', 'm3'],
      })
    ).body.result?.data as { config: Record<string, string> }[] | undefined) ?? [];
  expect(m1?.config).toEqual({});
  expect(m3?.config).toEqual({ email: 'NONE' });
});

test('the preference page saves what the person changed, as a link change', async () => {
  const links = await createLinks(service, { organizationId: ORG, userIds: ['mo'], documentId: 'p1' });
  const url = remember(links.mo?.preferencesUrl as string);
  const page = await openPage(url);
  expect(page.status).toBe(200);
  // Each select's name says what it showed.
  expect(page.html).toContain('name="org:slack~default"');
  const saved = await postForm(url, 'org:slack~default=ALL&doc:email~default=NONE&org:inbox~default=default');
  expect(saved.status).toBe(303);
  expect(saved.headers.get('location')).toBe('?saved=1');
  expect((await get('mo')).config).toEqual({ slack: 'ALL' });
  expect((await get('mo', { documentIds: ['p1'] })).config).toEqual({ email: 'NONE' });
  expect((await openPage(`${url}?saved=1`)).html).toContain('Your choices are saved.');
  // A page of an earlier release sends what it showed in a field of its own: read alike.
  expect((await postForm(url, 'doc:email=ALL&was:doc:email=NONE')).status).toBe(303);
  expect((await get('mo', { documentIds: ['p1'] })).config).toEqual({ email: 'ALL' });
  // Unknown fields or values, or a cell said twice: a 400 page, nothing written.
  for (const body of [
    'org:slack=SOMETIMES',
    'org:fax=ALL',
    'other=1',
    'org:slack=ALL&org:slack=NONE',
    'org:slack~ALL=NONE&org:slack~MINE=NONE',
    'org:slack~ALL=NONE&was:org:slack=ALL',
    'was:org:slack~ALL=NONE',
    'org:slack~SOME=NONE',
  ]) {
    const refused = await postForm(url, body);
    expect({ body, status: refused.status }).toEqual({ body, status: 400 });
  }
  expect((await get('mo')).config).toEqual({ slack: 'ALL' });
});

test('an unsubscribe from a category the policy does not list can be undone from the page it leads to', async () => {
  // links-org's policy lists no categories: "comment on every document" is the user's own layer.
  await unsubscribeFromCategory('uma', 'u1');

  // The preference page of a link without the category shows that layer too, as stored.
  const other = await createLinks(service, { organizationId: ORG, userIds: ['uma'] });
  const url = remember(other.uma?.preferencesUrl as string);
  const page = await openPage(url);
  expect(page.html).toMatch(
    /<select[^>]*name="org\/comment:email~NONE"[^>]*>(?:(?!<\/select>)[\s\S])*<option value="NONE" selected>/,
  );
  // Back to the default, from that page.
  expect((await postForm(url, 'org/comment:email~NONE=default')).status).toBe(303);
  expect((await get('uma', { category: 'comment' })).categories).toEqual({});
});

test('the schedule from the preference page: set and recorded as a link change, only what changed, refused whole when invalid', async () => {
  const links = await createLinks(service, { organizationId: ORG, userIds: ['nia'] });
  const url = remember(links.nia?.preferencesUrl as string);
  const post = (fields: [string, string][]) => postForm(url, new URLSearchParams(fields).toString());
  const schedule = async () => {
    const answer = await service.call('/v2/notifications/schedule/get', { organizationId: ORG, userId: 'nia' });
    return (answer.body.result?.data as { schedule: unknown } | undefined)?.schedule;
  };
  const shown = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';

  const page = await openPage(url);
  expect(page.html).toContain('<h2>When notifications arrive</h2>');
  expect(page.html).toContain('<label for="tz">Time zone</label>');
  const nights: [string, string][] = [
    ['q0d', 'mon'],
    ['q0d', 'tue'],
    ['q0s', '22:00'],
    ['q0e', '07:00'],
    ['q0c', 'email'],
  ];
  const saved = await post([
    ['schedule:timeZone', 'Europe/Berlin'],
    ['was:schedule:timeZone', shown(page.html, 'was:schedule:timeZone')],
    ['was:schedule:quietHours', shown(page.html, 'was:schedule:quietHours')],
    ...nights,
  ]);
  expect(saved.status).toBe(303);
  expect(await schedule()).toEqual({
    timeZone: 'Europe/Berlin',
    quietHours: [{ days: ['mon', 'tue'], start: '22:00', end: '07:00', channels: ['email'] }],
  });
  const changes = await eventually(
    () => history('nia'),
    (found) => found.length >= 1,
  );
  expect(changes[0]).toMatchObject({
    scope: 'schedule',
    cause: 'link',
    changedBy: 'link:k1',
    before: null,
    after: { timeZone: 'Europe/Berlin' },
  });

  // The page shows it; the time zone changed elsewhere meanwhile stays when the page is saved as shown.
  const again = await openPage(url);
  expect(again.html).toContain('value="Europe/Berlin"');
  expect(again.html).toContain('<legend>Quiet hours 1</legend>');
  const form: [string, string][] = [
    ['schedule:timeZone', 'Europe/Berlin'],
    ['was:schedule:timeZone', shown(again.html, 'was:schedule:timeZone')],
    ['was:schedule:quietHours', shown(again.html, 'was:schedule:quietHours')],
    ...nights,
  ];
  await service.call('/v2/notifications/schedule/set', {
    organizationId: ORG,
    userIds: ['nia'],
    schedule: { timeZone: 'Asia/Tokyo', quietHours: [{ days: ['sun'], start: '12:00', end: '13:00' }] },
  });
  expect((await post(form)).status).toBe(303);
  const tokyo = {
    timeZone: 'Asia/Tokyo',
    quietHours: [{ days: ['sun'], start: '12:00', end: '13:00', channels: ['email', 'slack'] }],
  };
  expect(await schedule()).toEqual(tokyo);

  // A form the page would not send, or a schedule schedule/set refuses: 400, nothing written.
  for (const fields of [
    [['schedule:timeZone', 'Mars/Olympus']],
    [['schedule:timeZone', 'europe/berlin']],
    [['schedule:timeZone', 'x'.repeat(3000)]],
    [
      ['schedule:timeZone', 'UTC'],
      ['schedule:timeZone', 'UTC'],
    ],
    [
      ['schedule:timeZone', 'UTC'],
      ['q0s', '22:00'],
    ],
    [
      ['schedule:timeZone', 'UTC'],
      ['q0d', 'mon'],
      ['q0s', '22:00'],
      ['q0e', '22:00'],
      ['q0c', 'email'],
    ],
    [
      ['schedule:timeZone', 'UTC'],
      ['q0d', 'someday'],
      ['q0s', '22:00'],
      ['q0e', '23:00'],
    ],
    [
      ['schedule:timeZone', 'UTC'],
      ['q0d', 'mon'],
      ['q0d', 'mon'],
      ['q0s', '1:00'],
      ['q0e', '2:00'],
    ],
    [
      ['schedule:timeZone', 'UTC'],
      ['q7d', 'mon'],
      ['q7s', '22:00'],
      ['q7e', '23:00'],
    ],
    [
      ['q0d', 'mon'],
      ['q0s', '22:00'],
      ['q0e', '23:00'],
      ['q0c', 'email'],
    ],
    // A valid schedule beside a channel value that is none: the whole form is refused.
    [
      ['schedule:timeZone', 'UTC'],
      ['org:email', 'SOMETIMES'],
    ],
  ] as [string, string][][]) {
    const refused = await post(fields);
    expect({ fields, status: refused.status }).toEqual({ fields, status: 400 });
    expect(refused.html).toContain('Nothing was changed.');
  }
  expect(await schedule()).toEqual(tokyo);
});

test('no log line of the whole flow holds a token (the twin, the functions, the access lines)', async () => {
  // A failure on the service side is logged too: it must not carry the token either.
  expect(tokens.length).toBeGreaterThan(10);
  const text = logged.join('\n');
  expect(text).toContain('/u/{proxy+}');
  for (const token of tokens) {
    expect(text).not.toContain(token);
    // Nor its parts (a log line that cut it at a dot).
    for (const part of token.split('.').filter((p) => p.length > 20)) expect(text).not.toContain(part);
  }
});
