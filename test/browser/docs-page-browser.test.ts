import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { launchChromium, openTab, screenshotsFolder } from '../support/chromium.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// The twin's pages as a person sees them: GET / leads to the docs page, and the page, rendered
// by a real browser (Debian's Chromium; .ci/run installs it, nothing is downloaded), is readable
// on a desktop and on a phone, with and without JavaScript. Screenshots go to a temporary folder
// named in the test output.
const SHOTS = screenshotsFolder('docs-page');

let service: LocalService;
let browser: Browser;

beforeAll(async () => {
  service = await startLocalService();
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
  console.log(`Docs page screenshots: ${SHOTS}`);
});

test('GET / answers JSON that leads to the docs page and the OpenAPI document', async () => {
  const response = await fetch(`${service.baseUrl}/`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json');
  const index = (await response.json()) as { docs: string; openapi: string };
  const docs = await fetch(new URL(index.docs, service.baseUrl));
  expect([docs.status, docs.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
  const openapi = await fetch(new URL(index.openapi, service.baseUrl));
  expect(openapi.status).toBe(200);
  expect(((await openapi.json()) as { openapi: string }).openapi).toMatch(/^3\./);
});

/** The docs page in a fresh tab; `errors` collects what the browser reports, a refused script or style among them. */
const openDocs = async (width: number, options: { javaScriptEnabled?: boolean } = {}) => {
  const { page, errors, context } = await openTab(browser, width, options);
  await page.goto(`${service.baseUrl}/docs`);
  return { page, errors, close: () => context.close() };
};

/** What the test measures of the rendered page. */
interface Layout {
  viewport: number;
  viewportHeight: number;
  pageWidth: number;
  main: { left: number; top: number; width: number };
  nav: { right: number; bottom: number };
  title: { bottom: number };
  firstParagraph: { top: number };
  contents: { present: boolean; summaryShown: boolean; linksShown: number; links: number };
  brokenWords: string[];
  descriptionLineBreaks: number;
}

// Runs in the page (a string: the test's TypeScript has no DOM types).
const MEASURE = `(() => {
  const box = (element) => element ? element.getBoundingClientRect() : { left: 0, top: 0, right: 0, bottom: 0, width: 0 };
  const shown = (element) => !!element && element.checkVisibility() && element.getClientRects().length > 0;
  const nav = document.querySelector('nav');
  const main = box(document.querySelector('main'));
  const contents = document.querySelector('nav details');
  const contentLinks = contents ? [...contents.querySelectorAll('a')] : [];

  // Words split across two lines: two letters or digits of one text node on different lines.
  // A break is fine after a space, a hyphen, a slash, a comma, a colon or before a dot, and
  // between text nodes (the page's <wbr> break points); never inside a word like organizationId.
  const brokenWords = [];
  const isWordChar = (char) => /[\\p{L}\\p{N}]/u.test(char);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.data.trim() || node.parentElement.closest('pre, script, style')) continue;
    range.selectNodeContents(node);
    if (range.getClientRects().length < 2) continue;
    let previousTop;
    for (let at = 0; at < node.data.length; at++) {
      range.setStart(node, at);
      range.setEnd(node, at + 1);
      const rect = range.getBoundingClientRect();
      if (rect.width === 0) continue;
      if (previousTop !== undefined && rect.top > previousTop + 1 && isWordChar(node.data[at - 1]) && isWordChar(node.data[at])) {
        const before = node.data.slice(0, at).match(/[\\p{L}\\p{N}]*$/u)[0];
        const after = node.data.slice(at).match(/^[\\p{L}\\p{N}]*/u)[0];
        brokenWords.push(before + '|' + after);
      }
      previousTop = rect.top;
    }
  }

  return {
    viewport: window.innerWidth,
    viewportHeight: window.innerHeight,
    pageWidth: document.documentElement.scrollWidth,
    main: { left: main.left, top: main.top + window.scrollY, width: main.width },
    nav: { right: box(nav).right, bottom: box(nav).bottom + window.scrollY },
    title: { bottom: box(document.querySelector('h1')).bottom },
    firstParagraph: { top: box(document.querySelector('main p')).top },
    contents: {
      present: !!contents,
      summaryShown: shown(contents && contents.querySelector('summary')),
      linksShown: contentLinks.filter(shown).length,
      links: contentLinks.length,
    },
    brokenWords,
    descriptionLineBreaks: document.querySelectorAll('main p br').length,
  };
})()`;

// The sidebar's links as shown: their texts, and whether a link or the sidebar cuts one off.
const LINKS = `[...document.querySelectorAll('nav a')].map((link) => ({
  text: link.innerText.replace(/\\s+/g, ' ').trim(),
  clipped: link.scrollWidth > link.clientWidth + 1 || link.closest('nav').scrollWidth > link.closest('nav').clientWidth + 1,
}))`;

describe.each([
  ['desktop', 1280],
  ['phone', 390],
])('the docs page on a %s (%i px)', (name, width) => {
  let layout: Layout;
  let links: { text: string; clipped: boolean }[];
  beforeAll(async () => {
    const { page, close } = await openDocs(width);
    try {
      await page.screenshot({ path: join(SHOTS, `docs-${width}.png`) });
      layout = await page.evaluate<Layout>(MEASURE);
      await page.locator('#migrateDocument').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `docs-${width}-migrate.png`) });
      // On a phone the reader opens the folded contents to see the links (a page without a fold
      // fails the test of the first screen, not this one).
      const fold = page.locator('nav details summary');
      if (name === 'phone' && (await fold.count()) > 0) await fold.click();
      links = await page.evaluate<{ text: string; clipped: boolean }[]>(LINKS);
    } finally {
      await close();
    }
  }, 60_000);

  test('sidebar links show distinct, whole texts naming each operation', () => {
    const texts = links.map((link) => link.text);
    expect(new Set(texts).size).toBe(texts.length);
    expect(links.filter((link) => link.clipped)).toEqual([]);
    expect(texts).toContain('migrateDocument POST /v2/organizations/documents/migrate');
    expect(texts).toContain('getMigrationStatus POST /v2/organizations/documents/migrate/status');
  });

  test('nothing is wider than the screen', () => {
    expect(layout.pageWidth).toBeLessThanOrEqual(layout.viewport);
  });

  test('no word breaks across lines: field names, paths and prose wrap only between words', () => {
    expect(layout.brokenWords).toEqual([]);
  });

  test('a newline inside a description is a space, not a line break', () => {
    expect(layout.descriptionLineBreaks).toBe(0);
  });

  if (name === 'phone') {
    test('the contents are folded above the content: the first screen shows the title and the start of the text', () => {
      expect(layout.contents).toMatchObject({ present: true, summaryShown: true, linksShown: 0 });
      expect(layout.title.bottom).toBeLessThanOrEqual(layout.viewportHeight / 2);
      expect(layout.firstParagraph.top).toBeLessThan(layout.viewportHeight / 2);
      expect(layout.main.width).toBeGreaterThanOrEqual(0.9 * layout.viewport);
      expect(layout.main.top).toBeGreaterThanOrEqual(layout.nav.bottom);
    });
  } else {
    test('the same contents are open in a sidebar beside a wide content column, with nothing to unfold', () => {
      expect(layout.contents.present).toBe(true);
      expect(layout.contents).toMatchObject({ summaryShown: false, linksShown: layout.contents.links });
      expect(layout.main.left).toBeGreaterThanOrEqual(layout.nav.right);
      expect(layout.main.width).toBeGreaterThanOrEqual(800);
    });
  }

  test('the search box finds an operation by a word of its name and jumps to it', async () => {
    const { page, errors, close } = await openDocs(width);
    try {
      const search = page.getByRole('searchbox', { name: 'Search' });
      await search.fill('reset');
      const hits = page.locator('#search-results a');
      await expect(hits.first().textContent()).resolves.toMatch(/^resetConfig\b/);
      const texts = await hits.allTextContents();
      // Operations unrelated to resetting are not listed, nor is the table of contents shown.
      for (const other of ['setConfig', 'migrateDocument', 'getMigrationStatus', 'eraseUser']) {
        expect(texts.filter((text) => text.startsWith(`${other} `))).toEqual([]);
      }
      await expect(page.locator('nav details').isHidden()).resolves.toBe(true);
      await page.screenshot({ path: join(SHOTS, `docs-${width}-search.png`) });

      await search.press('Enter');
      // Polled with evaluate: waitForFunction compiles its text with eval, which the page's CSP refuses.
      const focused = () => page.evaluate<boolean>('document.activeElement?.matches("#resetConfig h2") === true');
      for (let tries = 0; tries < 100 && !(await focused()); tries += 1) await page.waitForTimeout(100);
      expect(await focused()).toBe(true);
      expect(new URL(page.url()).hash).toBe('#resetConfig');
      const heading = await page.evaluate<{ top: number; height: number }>(
        `(() => ({ top: document.querySelector('#resetConfig h2').getBoundingClientRect().top, height: window.innerHeight }))()`,
      );
      expect(heading.top).toBeGreaterThanOrEqual(0);
      expect(heading.top).toBeLessThan(heading.height / 2);
      // The inline script ran under the page's Content-Security-Policy, which refused nothing.
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 30_000);
});

test('the page has one title, headings in order, labelled landmarks and a way past the contents', async () => {
  const { page, close } = await openDocs(1280);
  try {
    const levels = await page.evaluate<number[]>(
      `[...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].map((heading) => Number(heading.tagName[1]))`,
    );
    expect(levels[0]).toBe(1);
    expect(levels.filter((level) => level === 1)).toHaveLength(1);
    const skips = levels.flatMap((level, at) => (at > 0 && level > (levels[at - 1] ?? 0) + 1 ? [at] : []));
    expect(skips).toEqual([]);
    await expect(page.getByRole('navigation', { name: 'Contents' }).count()).resolves.toBe(1);
    await expect(page.getByRole('main').count()).resolves.toBe(1);
    await expect(page.getByRole('search').count()).resolves.toBe(1);
    // The first Tab reaches a link that skips the sidebar, shown while it has the focus.
    await page.keyboard.press('Tab');
    const focused = await page.evaluate<string>('document.activeElement.textContent');
    expect(focused).toBe('Skip to the content');
    const box = await page.getByRole('link', { name: 'Skip to the content' }).boundingBox();
    expect(box?.x).toBeGreaterThanOrEqual(0);
  } finally {
    await close();
  }
});

test('without JavaScript the page reads completely: no search box, and the folded contents open on a click', async () => {
  const { page, close } = await openDocs(390, { javaScriptEnabled: false });
  try {
    await expect(page.locator('#search-field').isVisible()).resolves.toBe(false);
    await page.getByText('Contents', { exact: true }).click();
    await expect(page.locator('nav a[href="#resetConfig"]').isVisible()).resolves.toBe(true);
    await page.screenshot({ path: join(SHOTS, 'docs-390-no-script-contents.png') });
    await page.locator('nav a[href="#resetConfig"]').click();
    await expect(page.locator('#resetConfig h2').isVisible()).resolves.toBe(true);
    expect(new URL(page.url()).hash).toBe('#resetConfig');
  } finally {
    await close();
  }
});
