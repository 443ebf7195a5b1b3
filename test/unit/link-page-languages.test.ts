import { describe, expect, test } from '@jest/globals';
import { BUILT_IN_DEFAULTS } from '#shared/api/channels.js';
import { newKeyringDocument, staticKeyring } from '#shared/links/keyring.js';
import type { LinkState, LinkStateReader } from '#shared/links/link-state.js';
import type { LinkScope } from '#shared/links/model.js';
import { preferencesPage } from '#shared/links/preferences.js';
import { sealLink } from '#shared/links/token.js';
import { unsubscribePage } from '#shared/links/unsubscribe.js';
import type { PublicRequest } from '#shared/platform/public-page.js';
import type { Policy } from '#shared/policy/model.js';
import { type PolicyInput, policySchema } from '#shared/policy/schema.js';
import { normalPolicy } from '#shared/policy/service.js';

// Which language the pages of a link speak (contract 16.1): the link's locale, else the request's
// Accept-Language, else English; the 404 page the same for every failure in a language; the
// policy's labels in the page's language; a 400 page's reason in it too.

const keys = staticKeyring(newKeyringDocument('k1'));
const NOW = new Date('2026-03-01T10:00:00Z');
const SECONDS = Math.floor(NOW.getTime() / 1000);

const policy: Policy = {
  categories: {
    comment: { label: 'Comments', labels: { de: 'Kommentare', ja: 'コメント' }, description: 'Replies to you' },
    security: { label: 'Security', channels: { email: { value: 'ALL', locked: true } } },
  },
};
const reader: LinkStateReader = {
  read: async (link) => ({ policy: { organizationId: link.organizationId, policy, version: 1 } }) as LinkState,
};
const store = {} as never;
const unsubscribe = unsubscribePage({ keys, reader, store, now: () => NOW });
const preferences = preferencesPage({
  keys,
  reader,
  store,
  schedules: store,
  defaults: BUILT_IN_DEFAULTS,
  now: () => NOW,
});

const token = async (purpose: 'unsubscribe' | 'preferences', extra: Partial<LinkScope> = {}) =>
  sealLink(
    {
      organizationId: 'acme',
      userId: 'u',
      channel: 'email',
      category: 'comment',
      purpose,
      issuedAt: SECONDS - 60,
      expiresAt: SECONDS + 3600,
      ...extra,
    },
    await keys.keyring(),
  );

const request = (tokenValue: string, acceptLanguage?: string, post?: string): PublicRequest => ({
  method: post === undefined ? 'GET' : 'POST',
  token: tokenValue,
  body: Buffer.from(post ?? ''),
  contentType: post === undefined ? undefined : 'application/x-www-form-urlencoded',
  acceptLanguage,
  query: {},
  signal: new AbortController().signal,
});

const htmlTag = (body: string) => /<html [^>]*>/.exec(body)?.[0];

describe('the language of a page', () => {
  test('a link made with locale de shows German to a browser that asks for French', async () => {
    const page = await preferences(request(await token('preferences', { locale: 'de' }), 'fr-FR,fr;q=0.9'));
    expect(page.status).toBe(200);
    expect(htmlTag(page.body)).toBe('<html lang="de" dir="ltr">');
    expect(page.body).toContain('<title>Ihre Benachrichtigungseinstellungen</title>');
    // The policy's German label.
    expect(page.body).toContain('<legend><bdi>Kommentare</bdi></legend>');
    const offer = await unsubscribe(request(await token('unsubscribe', { locale: 'de' }), 'fr'));
    expect(offer.body).toContain('E-Mail-Benachrichtigungen abbestellen');
  });

  test('without a locale, the browser’s language; without one the pages speak, English', async () => {
    const link = await token('unsubscribe');
    expect(htmlTag((await unsubscribe(request(link, 'it, fr-CA;q=0.8'))).body)).toBe('<html lang="fr" dir="ltr">');
    expect(htmlTag((await unsubscribe(request(link, 'it'))).body)).toBe('<html lang="en" dir="ltr">');
    expect(htmlTag((await unsubscribe(request(link))).body)).toBe('<html lang="en" dir="ltr">');
    // A label with no Japanese: the policy's own.
    const ja = (await unsubscribe(request(await token('unsubscribe', { category: 'security' }), 'ja'))).body;
    expect(ja).toContain('Security');
    expect(ja).toContain('配信');
  });

  test('Arabic is right to left', async () => {
    const page = await preferences(request(await token('preferences', { locale: 'ar' })));
    expect(htmlTag(page.body)).toBe('<html lang="ar" dir="rtl">');
    expect(page.body).toContain('إعدادات الإشعارات');
  });

  test('the 404 page: in the browser’s language, byte for byte the same for every failure', async () => {
    const expired = await token('preferences', { locale: 'de', issuedAt: SECONDS - 7200, expiresAt: SECONDS - 3600 });
    const wrongPage = await token('unsubscribe', { locale: 'de' });
    const answers = await Promise.all(
      [expired, wrongPage, 'not-a-token', `${expired.slice(0, -2)}AA`].map((value) =>
        preferences(request(value, 'fr')),
      ),
    );
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([404]));
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    expect(answers[0]?.body).toContain('Ce lien ne fonctionne pas');
    // Not the link's German: a failed link tells nothing, its locale neither.
    expect(answers[0]?.body).not.toContain('Dieser Link');
  });

  test('a 400 page says its reason in the page’s language', async () => {
    const page = await unsubscribe(request(await token('unsubscribe', { locale: 'ja' }), undefined, 'nope=1'));
    expect(page.status).toBe(400);
    expect(page.body).toContain('フォームに含められるのは List-Unsubscribe と scope だけです。');
    expect(page.body).toContain('変更は行われていません。');
  });
});

describe('labels and descriptions per locale in the policy', () => {
  test('kept as set (policy/set’s normal form), for the shipped locales only', () => {
    const input = {
      categories: {
        comment: { label: 'Comments', labels: { de: 'Kommentare', ar: 'التعليقات' }, descriptions: { ja: '返信' } },
      },
    };
    const parsed = policySchema().safeParse(input);
    expect(parsed.success).toBe(true);
    expect(normalPolicy(parsed.data as PolicyInput).categories?.comment).toEqual(input.categories.comment);
    for (const bad of [{ labels: { it: 'Commenti' } }, { labels: { de: '' } }, { descriptions: 'x' }]) {
      const refused = policySchema().safeParse({ categories: { comment: { label: 'Comments', ...bad } } });
      expect({ bad, success: refused.success }).toEqual({ bad, success: false });
    }
  });
});
