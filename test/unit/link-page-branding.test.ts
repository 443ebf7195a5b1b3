import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import type { StoredBranding } from '#shared/branding/model.js';
import { newKeyringDocument, staticKeyring } from '#shared/links/keyring.js';
import type { LinkScope } from '#shared/links/model.js';
import { PAGE_HEADERS } from '#shared/links/pages/layout.js';
import { sealLink } from '#shared/links/token.js';
import type { PageAnswer, PublicRequest } from '#shared/platform/public-page.js';
import { pageHandlers } from '../support/page-handlers.js';

// What the pages show of an organization's branding (contract 16.2): its name in the title and
// above the heading, its logo from the page's own route, its colour, its support and privacy
// links, its language when neither the link nor the browser names one; nothing of it without one.

const keys = staticKeyring(newKeyringDocument('k1'));
const NOW = new Date('2026-03-01T10:00:00Z');
const SECONDS = Math.floor(NOW.getTime() / 1000);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

const BRANDED: StoredBranding = {
  branding: {
    displayName: 'Acme <Docs>',
    logo: { contentType: 'image/png', data: PNG.toString('base64') },
    accentColor: '#0b5cad',
    defaultLocale: 'fr',
    supportUrl: 'https://help.acme.example/?a=1&b=2',
    privacyUrl: 'https://acme.example/privacy',
  },
  logoVersion: 'v1v1v1v1v1v1v1v1',
};

const pagesOf = (branding: StoredBranding | undefined) => pageHandlers(keys, NOW, branding);

const token = async (purpose: 'unsubscribe' | 'preferences', extra: Partial<LinkScope> = {}) =>
  sealLink(
    {
      organizationId: 'acme',
      userId: 'u',
      channel: 'email',
      purpose,
      issuedAt: SECONDS - 60,
      expiresAt: SECONDS + 3600,
      ...extra,
    },
    await keys.keyring(),
  );

const get = (tokenValue: string, query: Record<string, string> = {}, acceptLanguage?: string): PublicRequest => ({
  method: 'GET',
  token: tokenValue,
  body: Buffer.alloc(0),
  contentType: undefined,
  acceptLanguage,
  query,
  signal: new AbortController().signal,
});

const csp = (answer: PageAnswer) => answer.headers?.['content-security-policy'] ?? '';
/** Every inline sheet of a page is allowed by its CSP's hashes, and nothing else is. */
const sheetsAllowed = (answer: PageAnswer) => {
  const sheets = [...answer.body.matchAll(/<style>([^<]*)<\/style>/g)].map((match) => match[1] as string);
  const hashes = sheets.map((sheet) => `'sha256-${createHash('sha256').update(sheet).digest('base64')}'`);
  const policy = csp(answer) || (PAGE_HEADERS['content-security-policy'] as string);
  return hashes.every((hash) => policy.includes(hash));
};

describe('a branded organization’s pages', () => {
  test('the name in the title and above the heading, the logo, the colour, the links, escaped', async () => {
    const { preferences, unsubscribe } = pagesOf(BRANDED);
    for (const page of [
      await preferences(get(await token('preferences'), {}, 'de')),
      await unsubscribe(get(await token('unsubscribe'), {}, 'de')),
    ]) {
      expect(page.status).toBe(200);
      expect(page.body).toMatch(/<title>[^<]+ · Acme &lt;Docs&gt;<\/title>/);
      expect(page.body).toContain(
        '<p class="org"><img src="?logo=v1v1v1v1v1v1v1v1" alt=""><span>Acme &lt;Docs&gt;</span></p>\n<h1>',
      );
      expect(page.body).toContain('<style>a{color:#0b5cad}button{background:#0b5cad}');
      expect(page.body).toContain('href="https://help.acme.example/?a=1&amp;b=2"');
      expect(page.body).toContain('>Hilfe und Support</a>');
      expect(page.body).toContain('>Datenschutzerklärung</a>');
      expect(csp(page)).toContain("img-src 'self'");
      expect(csp(page)).toContain("frame-ancestors 'none'");
      expect(csp(page)).not.toContain('script-src');
      expect(sheetsAllowed(page)).toBe(true);
    }
  });

  test('the organization’s name where the pages said “this organization”, isolated from the text around it', async () => {
    const { preferences, unsubscribe } = pagesOf(BRANDED);
    const page = await preferences(get(await token('preferences'), {}, 'de'));
    expect(page.body).toContain('<h2>Von \u2068Acme &lt;Docs&gt;\u2069</h2>');
    const offer = await unsubscribe(get(await token('unsubscribe'), {}, 'en'));
    expect(offer.body).toContain('You will no longer get email notifications from \u2068Acme &lt;Docs&gt;\u2069.');
    const plain = await pagesOf(undefined).unsubscribe(get(await token('unsubscribe'), {}, 'en'));
    expect(plain.body).toContain('You will no longer get email notifications from this organization.');
  });

  test('the organization’s language when neither the link nor the browser names one the pages speak', async () => {
    const { preferences } = pagesOf(BRANDED);
    const page = await preferences(get(await token('preferences'), {}, 'it-IT'));
    expect(page.body).toContain('<html lang="fr" dir="ltr">');
    // The browser's language wins over it, and the link's over both.
    expect((await preferences(get(await token('preferences'), {}, 'es'))).body).toContain('<html lang="es"');
    expect((await preferences(get(await token('preferences', { locale: 'ja' }), {}, 'es'))).body).toContain(
      '<html lang="ja"',
    );
  });

  test('the logo from the page’s own route: its bytes, its type, kept long; another version is the 404 page', async () => {
    const { preferences, unsubscribe } = pagesOf(BRANDED);
    for (const [route, purpose] of [
      [preferences, 'preferences'],
      [unsubscribe, 'unsubscribe'],
    ] as const) {
      const logo = await route(get(await token(purpose), { logo: 'v1v1v1v1v1v1v1v1' }));
      expect(logo).toMatchObject({ status: 200, base64: true });
      expect(Buffer.from(logo.body, 'base64')).toEqual(PNG);
      expect(logo.headers).toEqual({
        'content-type': 'image/png',
        'cache-control': 'private, max-age=31536000, immutable',
      });
      const stale = await route(get(await token(purpose), { logo: 'older' }));
      expect(stale.status).toBe(404);
      const expired = await route(get(await token(purpose, { expiresAt: SECONDS - 1 }), { logo: 'v1v1v1v1v1v1v1v1' }));
      expect(expired.status).toBe(404);
    }
  });
});

describe('an organization without a branding', () => {
  test('its pages are the pages as they were: no name, no logo, no links, the pages’ own headers', async () => {
    const { preferences, unsubscribe } = pagesOf(undefined);
    for (const page of [
      await preferences(get(await token('preferences'))),
      await unsubscribe(get(await token('unsubscribe'))),
    ]) {
      expect(page.headers).toBeUndefined();
      expect(page.body).not.toMatch(/class="org"|<img|<footer|<script/);
      expect(page.body).toMatch(/<\/style>\n<\/head>\n<body>\n<main>\n<h1>[^<]+<\/h1>/);
      expect(page.body).toContain('</main>\n</body>');
      expect(sheetsAllowed(page)).toBe(true);
    }
    expect((await preferences(get(await token('preferences'), { logo: 'x' }))).status).toBe(404);
  });

  test('a name alone: no logo, no footer, no image allowed', async () => {
    const { preferences } = pagesOf({ branding: { displayName: 'Globex' } });
    const page = await preferences(get(await token('preferences')));
    expect(page.body).toContain('<p class="org"><span>Globex</span></p>');
    expect(page.body).not.toMatch(/<img|<footer/);
    expect(csp(page)).not.toContain('img-src');
    expect(sheetsAllowed(page)).toBe(true);
  });
});
