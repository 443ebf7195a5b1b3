import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { LOCALES, type Locale } from '#shared/api/locales.js';
import { wordsFor } from '#shared/links/i18n/words.js';
import { badRequestPage, fixedPagesIn } from '#shared/links/pages/fixed-pages.js';
import { UNSUBSCRIBE_REASONS } from '#shared/links/unsubscribe.js';
import { launchChromium, openTab } from '../support/chromium.js';
import { createLinks, oneClick, openPage } from '../support/links.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// Every page of the links, in every state and every shipped language, at 390 and 1280 px, checked
// by axe-core (a tool no one here wrote) against its WCAG 2.1 AA rules: no violation. The pages a
// link opens come over HTTP from the twin; the fixed pages (404, 405, try again) and a 400 page,
// which the edge answers without a link's language, are the same markup set into the tab. One
// browser, one tab per width, reused. Screenshots of every page in English (left to right) and
// Arabic (right to left) go to test/artifacts/ (not committed): the other languages share their
// layout, and a full-page shot costs about what its axe check does.

const SHOTS = join(process.cwd(), 'test', 'artifacts', 'link-pages-a11y');
const ORG = 'a11y-org';
const WIDTHS = [390, 1280] as const;
const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
/** The languages whose pages are photographed: one of each direction. */
const SHOWN: ReadonlySet<Locale> = new Set(['en', 'ar']);

let service: LocalService;
let browser: Browser;
const tabs = new Map<number, Page>();

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  service = await startLocalService();
  const policy = await service.call('/v2/organizations/policy/set', {
    organizationId: ORG,
    policy: {
      categories: {
        comment: {
          label: 'Comments and replies',
          labels: {
            de: 'Kommentare und Antworten',
            fr: 'Commentaires et réponses',
            ja: 'コメントと返信',
            ar: 'التعليقات والردود',
          },
          description: 'When someone comments on or replies in your documents.',
          descriptions: { de: 'Wenn jemand Ihre Dokumente kommentiert oder darin antwortet.' },
        },
        security: {
          label: 'Security alerts',
          labels: { es: 'Alertas de seguridad', 'pt-BR': 'Alertas de segurança' },
          channels: { email: { value: 'ALL', locked: true } },
        },
      },
    },
  });
  expect(policy.status).toBe(200);
  // A schedule with every part the page says in words: quiet hours, a snooze, a digest.
  const schedule = await service.call('/v2/notifications/schedule/set', {
    organizationId: ORG,
    userIds: ['person'],
    schedule: {
      timeZone: 'Asia/Tokyo',
      quietHours: [{ days: ['mon', 'tue'], start: '22:00', end: '07:00', channels: ['email', 'slack'] }],
      snoozeUntil: new Date(Date.now() + 86_400_000).toISOString(),
      digest: { channels: ['email'], cadence: 'weekly', at: '08:00', day: 'wed' },
    },
  });
  expect(schedule.status).toBe(200);
  browser = await launchChromium();
  for (const width of WIDTHS) tabs.set(width, (await openTab(browser, width)).page);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
  console.log(`Link pages accessibility screenshots: ${SHOTS}`);
});

/** A page to check: a URL to open (GET), or markup to set into the tab. */
type Shown = { name: string; url: string } | { name: string; markup: string };

/** Every state of every page in `locale`. */
const statesIn = async (locale: Locale): Promise<Shown[]> => {
  const made = await createLinks(service, {
    organizationId: ORG,
    userIds: ['person'],
    documentId: 'doc-1',
    category: 'comment',
    locale,
  });
  const locked = await createLinks(service, { organizationId: ORG, userIds: ['person'], category: 'security', locale });
  const links = made.person as { preferencesUrl: string; unsubscribeUrl: string };
  const lockedLinks = locked.person as { unsubscribeUrl: string };
  const words = wordsFor(locale);
  const fixed = fixedPagesIn(locale);
  return [
    { name: 'preferences', url: links.preferencesUrl },
    { name: 'preferences-saved', url: `${links.preferencesUrl}?saved=1` },
    { name: 'unsubscribe', url: links.unsubscribeUrl },
    { name: 'unsubscribe-locked', url: lockedLinks.unsubscribeUrl },
    // What the one-click POST answers: unsubscribed (repeating it is harmless), and a locked scope's page.
    { name: 'unsubscribed', markup: (await oneClick(links.unsubscribeUrl)).html },
    {
      name: 'locked',
      markup: (await oneClick(lockedLinks.unsubscribeUrl, 'List-Unsubscribe=One-Click&scope=category')).html,
    },
    { name: 'bad-request', markup: badRequestPage(words, UNSUBSCRIBE_REASONS.notOneClick) },
    { name: 'not-found', markup: fixed.notFound },
    { name: 'method-not-allowed', markup: fixed.methodNotAllowed },
    { name: 'try-again', markup: fixed.tryAgain },
  ];
};

describe.each(LOCALES)('%s', (locale) => {
  test('every page and state, at 390 and 1280 px: no violation of axe-core’s WCAG 2.1 AA rules', async () => {
    const states = await statesIn(locale);
    // Each state's page is what it claims: the one-click answers are pages of the link's language.
    expect((states.find((state) => state.name === 'locked') as { markup: string }).markup).toContain(
      `<html lang="${locale}"`,
    );
    // The policy's label in the page's language, where it has one.
    if (locale === 'ar') {
      expect((await openPage((states[0] as { url: string }).url)).html).toContain('<bdi>التعليقات والردود</bdi>');
    }
    const found: Record<string, unknown[]> = {};
    for (const width of WIDTHS) {
      const page = tabs.get(width) as Page;
      for (const state of states) {
        if ('url' in state) {
          const response = await page.goto(state.url);
          expect({ state: state.name, status: response?.status() }).toEqual({ state: state.name, status: 200 });
        } else {
          await page.setContent(state.markup);
        }
        expect(await page.getAttribute('html', 'lang')).toBe(locale);
        expect(await page.getAttribute('html', 'dir')).toBe(locale === 'ar' ? 'rtl' : 'ltr');
        // Legacy mode runs axe in the page itself: the pages have no frames, so the default's
        // per-frame runs merged in a new blank page add a page per check and find nothing more.
        const results = await new AxeBuilder({ page }).setLegacyMode().withTags(WCAG_21_AA).analyze();
        const violations = results.violations.map((violation) => ({
          rule: violation.id,
          nodes: violation.nodes.map((node) => node.target.join(' ')),
        }));
        if (violations.length > 0) found[`${state.name} at ${width}`] = violations;
        if (SHOWN.has(locale)) {
          await page.screenshot({ path: join(SHOTS, `${locale}-${state.name}-${width}.png`), fullPage: true });
        }
      }
    }
    expect(found).toEqual({});
  }, 180_000);
});

test('the 404 page over HTTP answers the same in English, whatever token failed', async () => {
  const first = await openPage(`${service.baseUrl}/p/not-a-token`);
  const second = await openPage(`${service.baseUrl}/u/also.not.a.token.at`);
  expect(first.status).toBe(404);
  expect(second.status).toBe(404);
  expect(first.html).toBe(fixedPagesIn('en').notFound);
});
