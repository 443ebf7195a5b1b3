import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import AxeBuilder from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { REPO_ROOT } from '#service/repository-root.js';
import { LOCALES } from '#shared/api/locales.js';
import { launchChromium, openTab } from '../support/chromium.js';
import { createLinks, openPage, tokenOf } from '../support/links.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// The pages of a branded organization and of one without branding, in a real browser, checked by
// axe-core at 390 and 1280 px; and the preference page inside an app (contract 16.3): the parent
// page of docs/api.md, on another origin, frames a short-lived link, resizes its frame to the
// height the page posts and shows that it saved; a parent of an origin not in embedOrigins gets
// no page. Both origins are https, as embedOrigins must be: the browser's requests to them are
// answered by the test (the parent page) and by the twin (the pages, the path kept), so nothing
// leaves the machine. Screenshots go to test/artifacts/ (not committed).

const SHOTS = join(process.cwd(), 'test', 'artifacts', 'link-pages-branded');
const WIDTHS = [390, 1280] as const;
const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const BRANDED = 'branded-org';
const PLAIN = 'plain-org';
const APP = 'https://app.acme.test';
const OTHER = 'https://elsewhere.test';
const PAGES = 'https://pages.acme.test';
const ACCENT = '#7b2d8e';

/** A PNG of one colour: a logo the browser really decodes. */
const png = (width: number, height: number, [r, g, b]: [number, number, number]): Buffer => {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => [r, g, b]).flat())]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
};

const LOGO = png(96, 32, [123, 45, 142]);

/** The parent page of docs/api.md (The preference page in an app), as it is written there. */
const DOCS_PARENT = (() => {
  const api = readFileSync(join(REPO_ROOT, 'docs/api.md'), 'utf8');
  const section = api.slice(api.indexOf('#### The preference page in an app'));
  const block = /```html\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block?.includes('PREFERENCES_URL')) throw new Error('docs/api.md has no parent page example');
  return block;
})();

// Run in the page (strings: the test's TypeScript has no DOM types).
const BUTTON_COLOUR = "getComputedStyle(document.querySelector('button')).backgroundColor";
const FRAME_HEIGHT = "document.getElementById('preferences').style.height";
const LOGO_WIDTH = "document.querySelector('.org img').naturalWidth";

let service: LocalService;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  service = await startLocalService();
  for (const organizationId of [BRANDED, PLAIN]) {
    const policy = await service.call('/v2/organizations/policy/set', {
      organizationId,
      policy: {
        categories: {
          comment: { label: 'Comments', labels: { fr: 'Commentaires', ar: 'التعليقات' } },
          security: { label: 'Security alerts', channels: { email: { value: 'ALL', locked: true } } },
        },
      },
    });
    expect(policy.status).toBe(200);
  }
  const branding = await service.call('/v2/organizations/branding/set', {
    organizationId: BRANDED,
    branding: {
      displayName: 'Acme Docs',
      logo: { contentType: 'image/png', data: LOGO.toString('base64') },
      accentColor: ACCENT,
      defaultLocale: 'fr',
      supportUrl: 'https://help.acme.test/',
      privacyUrl: 'https://acme.test/privacy',
      embedOrigins: [APP],
    },
  });
  expect(branding.status).toBe(200);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
  console.log(`Branded and framed link pages screenshots: ${SHOTS}`);
});

const linksOf = async (organizationId: string, extra: Record<string, unknown> = {}) =>
  (await createLinks(service, { organizationId, userIds: ['person'], category: 'comment', ...extra })).person as {
    preferencesUrl: string;
    unsubscribeUrl: string;
  };

/** A tab at `width`; the browser's own favicon request answered empty (the pages have none). */
const pageTab = async (width: number, options: { locale?: string } = {}) => {
  const tab = await openTab(browser, width, options);
  await tab.context.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }));
  return tab;
};

// Legacy mode, as in the a11y test: the pages checked here are top-level, with no frame to merge across.
const axeViolations = async (page: Page) =>
  (await new AxeBuilder({ page }).setLegacyMode().withTags(WCAG_21_AA).analyze()).violations.map((violation) => ({
    rule: violation.id,
    nodes: violation.nodes.map((node) => node.target.join(' ')),
  }));

describe.each(WIDTHS)('at %i px', (width) => {
  test('a branded organization’s pages: its name, logo, colour and links, in its language; no axe violation', async () => {
    const links = await linksOf(BRANDED);
    // A browser in Italian, which the pages do not speak: the organization's French.
    const { page, errors, context } = await pageTab(width, { locale: 'it-IT' });
    try {
      const found: Record<string, unknown> = {};
      for (const [name, url, lang] of [
        ['preferences', links.preferencesUrl, 'fr'],
        ['preferences-saved', `${links.preferencesUrl}?saved=1`, 'fr'],
        ['unsubscribe', links.unsubscribeUrl, 'fr'],
        // Every other language by the link's locale: the footer's words, Arabic right to left.
        ...(await Promise.all(
          LOCALES.filter((locale) => locale !== 'fr').map(
            async (locale) =>
              [`preferences-${locale}`, (await linksOf(BRANDED, { locale })).preferencesUrl, locale] as const,
          ),
        )),
      ]) {
        expect((await page.goto(url))?.status()).toBe(200);
        expect(await page.getAttribute('html', 'lang')).toBe(lang);
        expect(await page.getAttribute('html', 'dir')).toBe(lang === 'ar' ? 'rtl' : 'ltr');
        expect(await page.title()).toMatch(/ · Acme Docs$/);
        expect(await page.locator('.org').textContent()).toBe('Acme Docs');
        // The logo came from the page's own route and was decoded.
        expect(await page.evaluate(LOGO_WIDTH)).toBe(96);
        expect(await page.evaluate(BUTTON_COLOUR)).toBe('rgb(123, 45, 142)');
        expect(await page.locator('footer a').count()).toBe(2);
        const violations = await axeViolations(page);
        if (violations.length > 0) found[name] = violations;
        await page.screenshot({ path: join(SHOTS, `branded-${name}-${width}.png`), fullPage: true });
      }
      expect(found).toEqual({});
      // Nothing refused by the CSP: the sheets, the logo, the script all allowed.
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  test('an organization without branding: no name, logo or footer, the pages’ own colours; no axe violation', async () => {
    const links = await linksOf(PLAIN);
    const { page, errors, context } = await pageTab(width);
    try {
      const found: Record<string, unknown> = {};
      for (const [name, url] of [
        ['preferences', links.preferencesUrl],
        ['unsubscribe', links.unsubscribeUrl],
      ] as const) {
        expect((await page.goto(url))?.status()).toBe(200);
        expect(await page.getAttribute('html', 'lang')).toBe('en');
        expect(await page.title()).not.toContain('·');
        expect(await page.locator('.org, footer, img, script').count()).toBe(0);
        expect(await page.evaluate(BUTTON_COLOUR)).toBe('rgb(8, 66, 160)');
        const violations = await axeViolations(page);
        if (violations.length > 0) found[name] = violations;
        await page.screenshot({ path: join(SHOTS, `plain-${name}-${width}.png`), fullPage: true });
      }
      expect(found).toEqual({});
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});

test('the logo over HTTP: from the page’s own route, its bytes, its type, nosniff, kept long and privately', async () => {
  const links = await linksOf(BRANDED);
  const page = await openPage(links.preferencesUrl);
  const src = /<img src="([^"]+)"/.exec(page.html)?.[1] as string;
  expect(src).toMatch(/^\?logo=[\w-]{16}$/);
  const logo = await fetch(new URL(src, links.preferencesUrl));
  expect(logo.status).toBe(200);
  expect(Buffer.from(await logo.arrayBuffer())).toEqual(LOGO);
  expect(
    Object.fromEntries(
      ['content-type', 'x-content-type-options', 'cache-control'].map((name) => [name, logo.headers.get(name)]),
    ),
  ).toEqual({
    'content-type': 'image/png',
    'x-content-type-options': 'nosniff',
    'cache-control': 'private, max-age=31536000, immutable',
  });
  expect(page.headers.get('content-security-policy')).toContain("img-src 'self'");
  // Another version, or another organization's page: the one 404 page.
  expect((await fetch(new URL('?logo=AAAAAAAAAAAAAAAA', links.preferencesUrl))).status).toBe(404);
  expect((await fetch(new URL(src, (await linksOf(PLAIN)).preferencesUrl))).status).toBe(404);
});

/**
 * A browser context in which `parent` serves docs/api.md's parent page framing `preferencesUrl`
 * under PAGES, whose requests the twin answers (method, body and path kept). The browser does not
 * hand a redirect's next request to the test, so a save's 303 is followed here: the frame shows
 * the page after the save at the form's own URL.
 */
const framingContext = async (parent: string, preferencesUrl: string, width: number) => {
  const { page, errors, context } = await openTab(browser, width);
  const twin = new URL(preferencesUrl).origin;
  await context.route(`${parent}/**`, (route) =>
    route.fulfill({
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><html lang="en"><head><title>Settings</title></head><body><main><h1>Acme settings</h1>${DOCS_PARENT.replace(
        'PREFERENCES_URL',
        `${PAGES}/p/${tokenOf(preferencesUrl)}`,
      )}</main></body></html>`,
    }),
  );
  await context.route(`${PAGES}/**`, async (route) => {
    const url = new URL(route.request().url());
    await route.fulfill({ response: await route.fetch({ url: `${twin}${url.pathname}${url.search}` }) });
  });
  return { page, errors, context };
};

const frameOf = (page: Page) => page.frames().find((frame) => frame !== page.mainFrame());

describe('inside an app', () => {
  test('framed by an allowed origin: the frame takes the page’s height, and the parent hears of the save', async () => {
    const links = await linksOf(BRANDED, { expiresInMinutes: 15 });
    const { page, errors, context } = await framingContext(APP, links.preferencesUrl, 1280);
    try {
      await page.goto(`${APP}/settings`);
      // The parent sized the frame to the page: the whole form, without a scroll of its own.
      await page.waitForFunction("document.getElementById('preferences').style.height.endsWith('px')", undefined, {
        timeout: 5_000,
      });
      const frame = frameOf(page);
      expect(frame).toBeDefined();
      const inner = await (frame as NonNullable<typeof frame>).evaluate(
        'Math.ceil(document.body.getBoundingClientRect().height)',
      );
      expect(await page.evaluate(FRAME_HEIGHT)).toBe(`${inner}px`);
      expect(await page.locator('#saved').isHidden()).toBe(true);
      await page.screenshot({ path: join(SHOTS, 'framed-allowed-1280.png'), fullPage: true });

      // A change saved inside the frame: the page after the save tells the parent.
      const inFrame = page.frameLocator('#preferences');
      await inFrame.getByRole('group', { name: 'Commentaires' }).getByLabel('E-mail').selectOption('NONE');
      await inFrame.getByRole('button', { name: 'Enregistrer' }).click();
      await page.locator('#saved').waitFor({ state: 'visible' });
      expect(await inFrame.locator('.status[role=status]').count()).toBe(1);
      const stored = await service.call('/v2/notifications/config/get', {
        organizationId: BRANDED,
        userId: 'person',
        category: 'comment',
      });
      expect(JSON.stringify(stored.body)).toContain('"comment":{"email":"NONE"}');
      await page.screenshot({ path: join(SHOTS, 'framed-saved-1280.png'), fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  test('framed by another origin: the browser refuses the page, and the parent hears nothing', async () => {
    const links = await linksOf(BRANDED, { expiresInMinutes: 15 });
    const { page, context } = await framingContext(OTHER, links.preferencesUrl, 1280);
    try {
      const refused = page.waitForEvent('console', {
        predicate: (message) => message.text().includes('frame-ancestors'),
      });
      await page.goto(`${OTHER}/settings`);
      await refused;
      // The frame holds nothing of the page: the browser's own error in its place.
      const frame = frameOf(page);
      expect(await frame?.content().catch(() => '')).not.toContain('Acme Docs');
      expect(await page.evaluate(FRAME_HEIGHT)).toBe('40rem');
      expect(await page.locator('#saved').isHidden()).toBe(true);
      await page.screenshot({ path: join(SHOTS, 'framed-refused-1280.png'), fullPage: true });
    } finally {
      await context.close();
    }
  }, 60_000);
});
