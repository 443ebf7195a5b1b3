import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type Browser, chromium } from 'playwright-core';
import { type LocalService, startLocalService } from '../support/local-service.js';

// The twin's pages as a person sees them: GET / leads to the docs page, and the page, rendered
// by a real browser (Debian's Chromium; .ci/run installs it, nothing is downloaded), is readable
// on a desktop and on a phone. Screenshots go to a temporary folder named in the test output.
const CHROMIUM = '/usr/bin/chromium';
const SHOTS = mkdtempSync(join(tmpdir(), 'docs-page-'));

let service: LocalService;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  service = await startLocalService();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
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

/** What the test measures of the rendered page. */
interface Layout {
  viewport: number;
  pageWidth: number;
  main: { left: number; top: number; width: number };
  nav: { bottom: number };
  links: { text: string; clipped: boolean }[];
}

// Runs in the page (a string: the test's TypeScript has no DOM types). What is on screen: the
// rendered link texts, and whether a link or the sidebar cuts one off.
const MEASURE = `(() => {
  const nav = document.querySelector('nav');
  const main = document.querySelector('main').getBoundingClientRect();
  return {
    viewport: window.innerWidth,
    pageWidth: document.documentElement.scrollWidth,
    main: { left: main.left, top: main.top + window.scrollY, width: main.width },
    nav: { bottom: nav.getBoundingClientRect().bottom + window.scrollY },
    links: [...nav.querySelectorAll('a')].map((link) => ({
      text: link.innerText.replace(/\\s+/g, ' ').trim(),
      clipped: link.scrollWidth > link.clientWidth + 1 || nav.scrollWidth > nav.clientWidth + 1,
    })),
  };
})()`;

const layoutAt = async (width: number): Promise<Layout> => {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  try {
    await page.goto(`${service.baseUrl}/docs`);
    await page.screenshot({ path: join(SHOTS, `docs-${width}.png`) });
    await page.locator('#migrateDocument').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, `docs-${width}-migrate.png`) });
    return await page.evaluate<Layout>(MEASURE);
  } finally {
    await page.close();
  }
};

describe.each([
  ['desktop', 1280],
  ['phone', 420],
])('the docs page on a %s (%i px)', (name, width) => {
  let layout: Layout;
  beforeAll(async () => {
    layout = await layoutAt(width);
  }, 60_000);

  test('sidebar links show distinct, whole texts naming each operation', () => {
    const texts = layout.links.map((link) => link.text);
    expect(new Set(texts).size).toBe(texts.length);
    expect(layout.links.filter((link) => link.clipped)).toEqual([]);
    expect(texts).toContain('migrateDocument POST /v2/organizations/documents/migrate');
    expect(texts).toContain('getMigrationStatus POST /v2/organizations/documents/migrate/status');
  });

  test('nothing is wider than the screen', () => {
    expect(layout.pageWidth).toBeLessThanOrEqual(layout.viewport);
  });

  if (name === 'phone') {
    test('the sidebar sits above the content, which takes the whole width', () => {
      expect(layout.main.width).toBeGreaterThanOrEqual(0.9 * layout.viewport);
      expect(layout.main.top).toBeGreaterThanOrEqual(layout.nav.bottom);
    });
  } else {
    test('the sidebar sits beside a wide content column', () => {
      expect(layout.main.left).toBeGreaterThan(0);
      expect(layout.main.width).toBeGreaterThanOrEqual(800);
    });
  }
});
