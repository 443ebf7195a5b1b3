import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

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
