import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/**
 * The real browser of the page tests: Debian's Chromium (.ci/run installs it; nothing is
 * downloaded), driven by playwright-core, headless and quiet (no network of its own).
 */
export const CHROMIUM = '/usr/bin/chromium';

export const launchChromium = (): Promise<Browser> => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  return chromium.launch({
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
};

/** A temporary folder for a test's screenshots (the test names it in its output). */
export const screenshotsFolder = (name: string): string => mkdtempSync(join(tmpdir(), `${name}-`));

export interface Tab {
  page: Page;
  /** What the browser reported as errors (a refused script or style among them). */
  errors: string[];
  context: BrowserContext;
}

/**
 * A fresh tab at `width` px (a phone's height under 760 px, else a desktop's), collecting the
 * browser's errors. What a reader sees at once or not at all: no test waits for the page to
 * change on its own (5 s at most for any step).
 */
export const openTab = async (
  browser: Browser,
  width: number,
  /** `locale`: the browser's language (its Accept-Language); en-US unless named. */
  options: { javaScriptEnabled?: boolean; locale?: string } = {},
): Promise<Tab> => {
  const context = await browser.newContext({ viewport: { width, height: width < 760 ? 844 : 900 }, ...options });
  const page = await context.newPage();
  page.setDefaultTimeout(5_000);
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, errors, context };
};
