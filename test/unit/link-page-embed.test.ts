import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import * as z from 'zod/mini';
import type { StoredBranding } from '#shared/branding/model.js';
import { createLinks } from '#shared/links/create.js';
import { newKeyringDocument, staticKeyring } from '#shared/links/keyring.js';
import { EMBED_SCRIPT_BYTES } from '#shared/links/pages/embed.js';
import { createLinksRequest } from '#shared/links/routes/create-links.js';
import { openLink } from '#shared/links/token.js';
import type { PublicRequest } from '#shared/platform/public-page.js';
import { pageHandlers } from '../support/page-handlers.js';

// The preference page inside an organization's app (contract 16.3): short-lived links, framing by
// the branding's embedOrigins only, and a script under the page's CSP that tells the parent.

const keys = staticKeyring(newKeyringDocument('k1'));
const NOW = new Date('2026-03-01T10:00:00Z');
const ORIGINS = ['https://app.acme.example', 'https://admin.acme.example:8443'];

const pagesOf = (branding: StoredBranding | undefined) => pageHandlers(keys, NOW, branding);

const linksFor = async (extra: Record<string, unknown> = {}) => {
  const request = z.parse(createLinksRequest, { organizationId: 'acme', userIds: ['u'], ...extra });
  const made = await createLinks({ keys, now: () => NOW }, request, 'https://links.example');
  const links = made.u as { preferencesUrl: string; unsubscribeUrl: string; expiresAt: string };
  return { ...links, token: (url: string) => url.split('/').pop() as string };
};

const get = (token: string, query: Record<string, string> = {}): PublicRequest => ({
  method: 'GET',
  token,
  body: Buffer.alloc(0),
  contentType: undefined,
  query,
  signal: new AbortController().signal,
});

describe('short-lived links', () => {
  test('expiresInMinutes: the links work that many minutes', async () => {
    const links = await linksFor({ expiresInMinutes: 15 });
    expect(links.expiresAt).toBe('2026-03-01T10:15:00.000Z');
    const keyring = await keys.keyring();
    const token = links.token(links.preferencesUrl);
    expect(await openLink(token, keyring, new Date('2026-03-01T10:14:59Z'), 'preferences')).toBeDefined();
    expect(await openLink(token, keyring, new Date('2026-03-01T10:15:00Z'), 'preferences')).toBeUndefined();
  });

  test.each([
    [{ expiresInMinutes: 4 }, 'expiresInMinutes must be between 5 and 1440'],
    [{ expiresInMinutes: 1441 }, 'expiresInMinutes must be between 5 and 1440'],
    [{ expiresInMinutes: 7.5 }, 'expiresInMinutes must be a whole number'],
    [{ expiresInMinutes: 30, expiresInDays: 1 }, 'expiresInDays and expiresInMinutes cannot both be given'],
  ])('%j is refused', (extra, message) => {
    const parsed = z.safeParse(createLinksRequest, { organizationId: 'acme', userIds: ['u'], ...extra });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.message).join('\n')).toContain(message);
  });
});

describe('framing', () => {
  const framedBy = { branding: { displayName: 'Acme', embedOrigins: ORIGINS } };

  test('the preference page may be framed by the embed origins only, and carries the script its CSP allows', async () => {
    const links = await linksFor({ expiresInMinutes: 30 });
    const page = await pagesOf(framedBy).preferences(get(links.token(links.preferencesUrl)));
    const csp = page.headers?.['content-security-policy'] ?? '';
    expect(csp).toContain('frame-ancestors https://app.acme.example https://admin.acme.example:8443');
    const script = /<script data-origins="([^"]*)">([^<]*)<\/script>/.exec(page.body);
    expect(script?.[1]).toBe(ORIGINS.join(' '));
    const hash = createHash('sha256')
      .update(script?.[2] ?? '')
      .digest('base64');
    expect(csp).toContain(`script-src 'sha256-${hash}'`);
    expect(csp).not.toMatch(/unsafe|script-src[^;]*'self'/);
    // The saved page's notice is what the script reports.
    const saved = await pagesOf(framedBy).preferences(get(links.token(links.preferencesUrl), { saved: '1' }));
    expect(saved.body).toContain('<p class="status" role="status">');
  });

  test('the unsubscribe pages, and an organization without embed origins, are never framed and carry no script', async () => {
    const links = await linksFor();
    const offer = await pagesOf(framedBy).unsubscribe(get(links.token(links.unsubscribeUrl)));
    expect(offer.headers?.['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(offer.body).not.toContain('<script');
    for (const branding of [undefined, { branding: { displayName: 'Acme' } }]) {
      const page = await pagesOf(branding).preferences(get(links.token(links.preferencesUrl)));
      expect(page.body).not.toContain('<script');
      expect(page.headers?.['content-security-policy'] ?? "frame-ancestors 'none'").toContain("frame-ancestors 'none'");
    }
  });

  test('the script is at most 2 KB', () => {
    expect(EMBED_SCRIPT_BYTES).toBeLessThanOrEqual(2048);
  });
});
