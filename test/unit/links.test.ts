import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { CompactEncrypt, EncryptJWT } from 'jose';
import { FORM_REASONS, parseForm } from '#shared/links/form.js';
import { wordsFor } from '#shared/links/i18n/words.js';
import {
  deriveKeyring,
  type KeyringDocument,
  newKeyringDocument,
  parseKeyringDocument,
  serializeKeyringDocument,
} from '#shared/links/keyring.js';
import { MAX_LINK_SECONDS } from '#shared/links/model.js';
import { NOT_FOUND_PAGE } from '#shared/links/pages/fixed-pages.js';
import { constant, escapeHtml, html, toText } from '#shared/links/pages/html.js';
import { PAGE_HEADERS } from '#shared/links/pages/layout.js';
import { describeTarget, offerPage, unsubscribedPage } from '#shared/links/pages/unsubscribe-pages.js';
import { isRevoked, revocationHash, revocationKey } from '#shared/links/revocation.js';
import { MAX_TOKEN_LENGTH, openLink, sealedLength, sealLink } from '#shared/links/token.js';
import { linkBaseUrl } from '#shared/links/urls.js';
import type { Policy } from '#shared/policy/model.js';

const EN = wordsFor('en');

const NOW = new Date('2026-11-22T09:00:00Z');
const now = Math.floor(NOW.getTime() / 1000);
const keyring = deriveKeyring(newKeyringDocument('k1'));
const scope = {
  organizationId: 'acme',
  userId: 'alice',
  documentId: 'doc-1',
  category: 'comment',
  channel: 'email' as const,
  issuedAt: now,
  expiresAt: now + 86_400,
};

describe('tokens', () => {
  test('sealed and opened: the scope and the key id come back; nothing of it is readable', async () => {
    const token = await sealLink(scope, keyring);
    expect(await openLink(token, keyring, NOW, 'unsubscribe')).toEqual({ ...scope, keyId: 'k1' });
    const [header, key, iv, ciphertext, tag] = token.split('.');
    expect(JSON.parse(Buffer.from(header as string, 'base64url').toString())).toEqual({
      alg: 'dir',
      enc: 'A256GCM',
      kid: 'k1',
    });
    expect([key, iv?.length, tag?.length]).toEqual(['', 16, 22]);
    expect(Buffer.from(ciphertext as string, 'base64url').toString('latin1')).not.toMatch(/acme|alice|doc-1|comment/);
  });

  test('its length follows from its scope, for any identifiers', async () => {
    for (const userId of ['a', 'é"\\', '😀'.repeat(128), '\u4e00'.repeat(256)]) {
      const token = await sealLink({ ...scope, userId }, keyring);
      expect(token.length).toBe(sealedLength({ ...scope, userId }, 'k1'));
      expect(token.length).toBeLessThanOrEqual(MAX_TOKEN_LENGTH);
    }
  });

  test('every failure is undefined alike: altered, expired, from the future, unknown key, other algorithm, extra claims', async () => {
    const token = await sealLink(scope, keyring);
    const other = deriveKeyring(newKeyringDocument('k1'));
    const flipped = (part: number) =>
      token
        .split('.')
        .map((p, i) => (i === part ? `${p.slice(0, -2)}${p.endsWith('AA') ? 'BB' : 'AA'}` : p))
        .join('.');
    const cases: [string, string, Date?][] = [
      ['altered header', flipped(0)],
      ['altered iv', flipped(2)],
      ['altered ciphertext', flipped(3)],
      ['altered tag', flipped(4)],
      ['expired', await sealLink({ ...scope, expiresAt: now - 1 }, keyring)],
      ['from the future', await sealLink({ ...scope, issuedAt: now + 3600 }, keyring)],
      ['empty', ''],
      ['garbage', 'not.a.token.at.all'],
      ['oversized', `${token}${'A'.repeat(MAX_TOKEN_LENGTH)}`],
    ];
    for (const [name, candidate, at] of cases) {
      expect({ name, opened: await openLink(candidate, keyring, at ?? NOW, 'unsubscribe') }).toEqual({
        name,
        opened: undefined,
      });
    }
    // The same id, another key: authentication fails.
    expect(await openLink(token, other, NOW, 'preferences')).toBeUndefined();
    // Well-sealed, but claims this service never writes.
    const extra = await new EncryptJWT({ o: 'acme', u: 'alice', ch: 'email', admin: true, iat: now, exp: now + 60 })
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: 'k1' })
      .encrypt(keyring.current.encryption);
    expect(await openLink(extra, keyring, NOW, 'preferences')).toBeUndefined();
    // A JWE without claims of a JWT, and one with compression asked for.
    const bare = await new CompactEncrypt(new TextEncoder().encode('{}'))
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: 'k1' })
      .encrypt(keyring.current.encryption);
    expect(await openLink(bare, keyring, NOW, 'preferences')).toBeUndefined();
    const unknownKey = await new EncryptJWT({ o: 'acme', u: 'alice', ch: 'email', iat: now, exp: now + 60 })
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: 'k9' })
      .encrypt(keyring.current.encryption);
    expect(await openLink(unknownKey, keyring, NOW, 'preferences')).toBeUndefined();
  });
});

/** A token sealed by hand with any protected header and claims (what a holder of a leaked key could make). */
const sealByHand = (header: Record<string, unknown>, claims: Record<string, unknown>, key: Uint8Array): string => {
  const protectedHeader = Buffer.from(JSON.stringify(header)).toString('base64url');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(protectedHeader, 'ascii'));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(claims), 'utf8'), cipher.final()]);
  return [
    protectedHeader,
    '',
    iv.toString('base64url'),
    ciphertext.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
  ].join('.');
};

describe('tokens: header, lifetime and purpose', () => {
  const claims = { o: 'acme', u: 'alice', ch: 'email', iat: now, exp: now + 86_400 };
  const header = { alg: 'dir', enc: 'A256GCM', kid: 'k1' };

  test('exactly the expected protected header: any other parameter (zip, cty, crit, typ) is refused', async () => {
    const key = keyring.current.encryption;
    expect(await openLink(sealByHand(header, claims, key), keyring, NOW, 'unsubscribe')).toMatchObject({
      userId: 'alice',
    });
    for (const extra of [{ zip: 'DEF' }, { cty: 'JWT' }, { typ: 'JWT' }, { crit: ['exp'], exp: 1 }, { x: 1 }]) {
      const token = sealByHand({ ...header, ...extra }, claims, key);
      expect({ extra, opened: await openLink(token, keyring, NOW, 'unsubscribe') }).toEqual({
        extra,
        opened: undefined,
      });
    }
    // Members in another order are the same header.
    expect(
      await openLink(sealByHand({ kid: 'k1', enc: 'A256GCM', alg: 'dir' }, claims, key), keyring, NOW, 'preferences'),
    ).toBeDefined();
  });

  test(`a lifetime of at most ${MAX_LINK_SECONDS / 86_400} days: a longer one (100 years) is refused`, async () => {
    const lasting = (seconds: number) => sealLink({ ...scope, expiresAt: now + seconds }, keyring);
    expect(await openLink(await lasting(MAX_LINK_SECONDS), keyring, NOW, 'unsubscribe')).toBeDefined();
    expect(await openLink(await lasting(MAX_LINK_SECONDS + 1), keyring, NOW, 'unsubscribe')).toBeUndefined();
    expect(await openLink(await lasting(100 * 365 * 86_400), keyring, NOW, 'unsubscribe')).toBeUndefined();
    // Issued before now, the same bound holds: a token cannot be made to last by an early iat either.
    const early = await sealLink({ ...scope, issuedAt: now - MAX_LINK_SECONDS, expiresAt: now + 60 }, keyring);
    expect(await openLink(early, keyring, NOW, 'unsubscribe')).toBeUndefined();
  });

  test('a token opens only the page it was made for; one made before purposes existed opens both', async () => {
    const unsubscribe = await sealLink({ ...scope, purpose: 'unsubscribe' }, keyring);
    const preferences = await sealLink({ ...scope, purpose: 'preferences' }, keyring);
    const legacy = await sealLink(scope, keyring);
    const opens = async (token: string) => [
      (await openLink(token, keyring, NOW, 'unsubscribe')) !== undefined,
      (await openLink(token, keyring, NOW, 'preferences')) !== undefined,
    ];
    expect(await opens(unsubscribe)).toEqual([true, false]);
    expect(await opens(preferences)).toEqual([false, true]);
    expect(await opens(legacy)).toEqual([true, true]);
    expect(await openLink(unsubscribe, keyring, NOW, 'unsubscribe')).toEqual({
      ...scope,
      purpose: 'unsubscribe',
      keyId: 'k1',
    });
    // A purpose this service never writes is refused like any other claim it never writes.
    expect(
      await openLink(
        sealByHand(header, { ...claims, p: 'x' }, keyring.current.encryption),
        keyring,
        NOW,
        'unsubscribe',
      ),
    ).toBeUndefined();
  });
});

describe('keys', () => {
  const document: KeyringDocument = {
    current: 'k2',
    keys: { k1: 'a'.repeat(40), k2: 'b'.repeat(40) },
    retireAfter: { k1: '2027-11-23T00:00:00.000Z' },
  };

  test('the secret is flat JSON that Secrets Manager can generate, and reads back the same', () => {
    const text = serializeKeyringDocument(document);
    expect(JSON.parse(text)).toEqual({
      current: 'k2',
      'key:k1': 'a'.repeat(40),
      'retire-after:k1': '2027-11-23T00:00:00.000Z',
      'key:k2': 'b'.repeat(40),
    });
    expect(parseKeyringDocument(text)).toEqual(document);
    // What the stack's generated secret looks like: a template with `current`, a generated key.
    expect(
      parseKeyringDocument(
        '{"current":"k1","key:k1":"Xy7Qp2Lk9Vb4Nm8Rt1Wz6Hc3Jd5Fg0Sa2Ee4Uo6Ii8Yy0Tt2Rr4Qq6Pp8Oo0Nn2"}',
      ).current,
    ).toBe('k1');
  });

  test('a broken secret says what is wrong and never shows a key', () => {
    for (const [value, message] of [
      ['not json', /not a JSON object/],
      [`{"key:k1":"${'a'.repeat(40)}"}`, /no current key/],
      [`{"current":"k2","key:k1":"${'a'.repeat(40)}"}`, /k2 is not among the keys/],
      ['{"current":"k1","key:k1":"short"}', /shorter than 32/],
      [`{"current":"k1","key:K 1":"${'a'.repeat(40)}"}`, /Invalid link key id/],
      [`{"current":"k1","key:k1":"${'a'.repeat(40)}","other":"x"}`, /Unknown member/],
    ] as const) {
      expect(() => parseKeyringDocument(value)).toThrow(message);
      try {
        parseKeyringDocument(value);
      } catch (error) {
        expect((error as Error).message).not.toContain('a'.repeat(40));
      }
    }
  });

  test('each key gives two different keys; the same material gives the same ones', () => {
    const ring = deriveKeyring(document);
    const k1 = ring.byId.get('k1');
    expect(ring.current.id).toBe('k2');
    expect(Buffer.from(k1?.encryption ?? []).equals(Buffer.from(k1?.revocation ?? []))).toBe(false);
    expect(deriveKeyring(document).byId.get('k1')?.encryption).toEqual(k1?.encryption);
  });
});

describe('revocation', () => {
  const key = keyring.current;
  test('keyed by an HMAC of (organization, user): no identifier, no collision between pairs that concatenate alike', () => {
    const item = revocationKey(key, 'acme', 'alice');
    expect(item.pk).toMatch(/^REVOKED#k1#[A-Za-z0-9_-]{43}$/);
    expect(item.pk).not.toContain('acme');
    expect(revocationHash(key, 'a#b', 'c')).not.toBe(revocationHash(key, 'a', 'b#c'));
    expect(revocationHash(key, 'ab', 'c')).not.toBe(revocationHash(key, 'a', 'bc'));
  });

  test('a link issued before the time is revoked; one issued at or after it is not', () => {
    expect(isRevoked({ issuedAt: 99 }, { revokedBefore: 100 })).toBe(true);
    expect(isRevoked({ issuedAt: 100 }, { revokedBefore: 100 })).toBe(false);
    expect(isRevoked({ issuedAt: 1 }, undefined)).toBe(false);
    expect(MAX_LINK_SECONDS).toBe(365 * 86_400);
  });
});

describe('pages', () => {
  test('every value is escaped, in text and attributes; constants take no value', () => {
    const label = `<script>alert("x")</script>&'`;
    expect(toText(html`<p title="${label}">${label}</p>`)).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>',
    );
    expect(toText(html`${[html`<b>${'<i>'}</b>`, null, false, 3]}`)).toBe('<b>&lt;i&gt;</b>3');
    expect(escapeHtml('"\'<>&')).toBe('&quot;&#39;&lt;&gt;&amp;');
    expect(() => (constant as unknown as (s: TemplateStringsArray, v: string) => unknown)`a${'b'}`).toThrow();
  });

  test('policy text never becomes markup on a page', () => {
    const policy = { categories: { comment: { label: '<img src=x onerror=alert(1)>' } } };
    const page = offerPage(
      EN,
      policy,
      'email',
      [{ scope: 'category', target: { documentId: null, category: 'comment' } }],
      'token',
    );
    expect(page).not.toContain('<img');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(describeTarget(EN, {}, 'slack', { documentId: null })).toBe('Slack notifications from this organization');
  });

  test('unsubscribed from every category: the page names what the policy still sends, by label', () => {
    const policy: Policy = {
      categories: {
        security: { label: 'Security alerts', channels: { email: { value: 'ALL', locked: true } } },
        billing: { label: 'Billing', channels: { email: { value: 'NONE', locked: true } } },
        comment: { label: 'Comments' },
      },
    };
    const text = (target: Parameters<typeof unsubscribedPage>[3]) => unsubscribedPage(EN, policy, 'email', target, 't');
    expect(text({ documentId: null })).toContain(
      'You will no longer get email notifications from this organization, except Security alerts: your organization always sends those.',
    );
    expect(text({ documentId: 'd' })).toContain('except Security alerts');
    // One category: nothing else to say.
    expect(text({ documentId: null, category: 'comment' })).toContain(
      'You will no longer get email notifications about Comments, on every document.',
    );
    // Slack is locked nowhere.
    expect(unsubscribedPage(EN, policy, 'slack', { documentId: null }, 't')).toContain(
      'You will no longer get Slack notifications from this organization.',
    );
  });

  test('the headers of every page; the 404 page names no case', () => {
    expect(PAGE_HEADERS).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
    expect(PAGE_HEADERS['content-security-policy']).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self'/,
    );
    expect(NOT_FOUND_PAGE).not.toMatch(/revoked|tampered|altered|unknown/i);
  });
});

describe('forms', () => {
  const urlencoded = 'application/x-www-form-urlencoded';
  test('urlencoded and multipart, UTF-8 only, text only, bounded', async () => {
    expect(await parseForm(Buffer.from('List-Unsubscribe=One-Click&a+b=c%20d'), urlencoded)).toEqual({
      ok: true,
      fields: [
        ['List-Unsubscribe', 'One-Click'],
        ['a b', 'c d'],
      ],
    });
    const multipart = Buffer.from(
      '--x\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--x--\r\n',
    );
    expect(await parseForm(multipart, 'multipart/form-data; boundary=x')).toEqual({
      ok: true,
      fields: [['List-Unsubscribe', 'One-Click']],
    });
    for (const [body, type] of [
      ['a=%FF', urlencoded],
      ['a=%zz', urlencoded],
      [Buffer.from([0x61, 0x3d, 0xff]), urlencoded],
      ['{}', 'application/json'],
      ['a=b', undefined],
      ['a'.repeat(70_000), urlencoded],
      [
        '--x\r\nContent-Disposition: form-data; name="f"; filename="a"\r\n\r\nz\r\n--x--\r\n',
        'multipart/form-data; boundary=x',
      ],
      ['garbage', 'multipart/form-data; boundary=x'],
    ] as const) {
      const parsed = await parseForm(Buffer.isBuffer(body) ? body : Buffer.from(body), type);
      expect(parsed.ok).toBe(false);
    }
    // The reason names the fault: an escape of bytes that are not UTF-8, or a stray %.
    const reason = async (body: string) =>
      ((await parseForm(Buffer.from(body), urlencoded)) as { reason?: string }).reason;
    expect(await reason('a=%FF')).toBe(FORM_REASONS.encoding);
    expect(await reason('List-Unsubscribe=One-Click&%ZZ=1')).toBe(FORM_REASONS.escape);
    expect(await reason('a=100%')).toBe(FORM_REASONS.escape);
  });
});

test('links are built on the configured base, else on the address called (https, http for loopback only)', () => {
  expect(linkBaseUrl('https://links.example.com/prefs', 'abc.execute-api.eu-west-1.amazonaws.com')).toBe(
    'https://links.example.com/prefs',
  );
  expect(linkBaseUrl(undefined, 'abc.execute-api.eu-west-1.amazonaws.com')).toBe(
    'https://abc.execute-api.eu-west-1.amazonaws.com',
  );
  expect(linkBaseUrl(undefined, '127.0.0.1:3000')).toBe('http://127.0.0.1:3000');
  expect(() => linkBaseUrl(undefined, 'evil.com/path?x')).toThrow();
});
