import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openTab, screenshotsFolder } from '../support/chromium.js';
import { createLinks } from '../support/links.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// The pages of the links as a person sees them, in a real browser (Debian's Chromium, driven by
// playwright-core; .ci/run installs it, nothing is downloaded), at 1280 px and 390 px: the
// preference page changed with the keyboard and with the mouse, saved, and the change seen
// through the API; the unsubscribe page shows its choices and changes nothing until its button
// is pressed. No horizontal scroll, labels on every control, headings in order, no script needed.
// Screenshots go to a temporary folder named in the test output.
const SHOTS = screenshotsFolder('link-pages');
const ORG = 'browser-org';

let service: LocalService;
let browser: Browser;

beforeAll(async () => {
  service = await startLocalService();
  const policy = await service.call('/v2/organizations/policy/set', {
    organizationId: ORG,
    policy: {
      channels: { email: { value: 'MINE' } },
      categories: {
        comment: {
          label: 'Comments and replies',
          description: 'When someone comments on or replies in your documents.',
        },
        mention: { label: 'Mentions' },
        security: {
          label: 'Security alerts',
          description: 'Sign-ins and permission changes.',
          channels: { email: { value: 'ALL', locked: true } },
        },
      },
    },
  });
  expect(policy.status).toBe(200);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
  console.log(`Link pages screenshots: ${SHOTS}`);
});

const open = async (url: string, width: number, options: { javaScriptEnabled?: boolean } = {}) => {
  const { page, errors, context } = await openTab(browser, width, options);
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  const response = await page.goto(url);
  return { page, errors, requests, status: response?.status(), close: () => context.close() };
};

// Runs in the page (a string: the test's TypeScript has no DOM types).
const LAYOUT = `(() => {
  const unlabelled = [...document.querySelectorAll('select, input:not([type=hidden]), button')].filter((control) => {
    if (control.tagName === 'BUTTON') return !control.textContent.trim();
    return !(control.labels && control.labels.length > 0);
  }).length;
  const headings = [...document.querySelectorAll('h1, h2, h3')].map((h) => Number(h.tagName[1]));
  return {
    scrollWidth: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
    unlabelled,
    headings,
    h1: document.querySelectorAll('h1').length,
  };
})()`;

interface Layout {
  scrollWidth: number;
  viewport: number;
  unlabelled: number;
  headings: number[];
  h1: number;
}

const checkLayout = async (page: Page) => {
  const layout = await page.evaluate<Layout>(LAYOUT);
  expect(layout.scrollWidth).toBeLessThanOrEqual(layout.viewport);
  expect(layout.unlabelled).toBe(0);
  expect(layout.h1).toBe(1);
  // Headings never skip a level.
  layout.headings.forEach((level, i) => {
    if (i > 0) expect(level - (layout.headings[i - 1] as number)).toBeLessThanOrEqual(1);
  });
};

// Tab reaches every control, in the order of the page (what is read is what is reached). A time
// input takes a Tab per part (hours, minutes, AM/PM): one visit.
const NAME_OF = `(e) => e.id || (e.name ? e.name + '=' + e.value : e.textContent.trim())`;
const FOCUSABLE = `[...document.querySelectorAll('a[href], select, input:not([type=hidden]), button')].map(${NAME_OF})`;
const FOCUSED = `(() => { const e = document.activeElement; return e && e !== document.body ? (${NAME_OF})(e) : ''; })()`;

const checkFocusOrder = async (page: Page) => {
  const order = await page.evaluate<string[]>(FOCUSABLE);
  const visited: string[] = [];
  for (let tabs = 0; tabs < order.length * 4 && visited.length < order.length; tabs++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate<string>(FOCUSED);
    if (focused !== visited.at(-1)) visited.push(focused);
  }
  expect(visited).toEqual(order);
  await page.evaluate('document.activeElement?.blur()');
};

const config = async (userId: string, extra: Record<string, unknown> = {}) =>
  (
    (await service.call('/v2/notifications/config/get', { organizationId: ORG, userId, ...extra })).body.result?.data as
      | { config: Record<string, string>; categories: Record<string, Record<string, string>> }[]
      | undefined
  )?.[0];

describe.each([1280, 390])('at %i px', (width) => {
  test('the preference page: change one setting with the keyboard, one with the mouse, save, see both through the API', async () => {
    const userId = `person-${width}`;
    const links = await createLinks(service, { organizationId: ORG, userIds: [userId], documentId: 'doc-1' });
    const { page, errors, requests, status, close } = await open(links[userId]?.preferencesUrl as string, width);
    try {
      expect(status).toBe(200);
      await checkLayout(page);
      // Nothing loaded but the page itself.
      expect(requests).toHaveLength(1);
      // Labels from the policy, values in words, a locked channel shown as text.
      await expect(page.getByRole('group', { name: 'Comments and replies' }).isVisible()).resolves.toBe(true);
      const security = page.getByRole('group', { name: 'Security alerts' });
      expect(await security.textContent()).toContain('set by your organization');
      expect(await security.locator('select').count()).toBe(2);
      await page.screenshot({ path: join(SHOTS, `preferences-${width}.png`), fullPage: true });

      // Keyboard: focus the Comments email setting by Tab, choose "None" with the arrow keys.
      const commentsEmail = page.getByRole('group', { name: 'Comments and replies' }).getByLabel('Email');
      const target = await commentsEmail.getAttribute('id');
      const focused = () => page.evaluate<string | undefined>('document.activeElement?.id');
      for (let tabs = 0; tabs < 40 && (await focused()) !== target; tabs++) await page.keyboard.press('Tab');
      expect(await focused()).toBe(target);
      // From "use the default": ALL, MINE, NONE below it.
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      expect(await commentsEmail.inputValue()).toBe('NONE');

      // Mouse: the document's Slack setting to every notification.
      const documentSlack = page.getByRole('group', { name: 'Everything about this document' }).getByLabel('Slack');
      await documentSlack.click();
      await documentSlack.selectOption('ALL');
      await page.screenshot({ path: join(SHOTS, `preferences-${width}-changed.png`), fullPage: true });
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(/\?saved=1$/);
      expect(await page.getByRole('status').textContent()).toContain('saved');
      await page.screenshot({ path: join(SHOTS, `preferences-${width}-saved.png`), fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
    expect((await config(userId, { category: 'comment' }))?.categories).toEqual({ comment: { email: 'NONE' } });
    expect((await config(userId, { documentIds: ['doc-1'] }))?.config).toEqual({ slack: 'ALL' });
  });

  test("the preference page's schedule: the digest in words, quiet hours added with mouse and keyboard, saved, seen through schedule/get", async () => {
    const userId = `sleeper-${width}`;
    const digest = { channels: ['email'], cadence: 'weekly', at: '08:00', day: 'mon' };
    const before = await service.call('/v2/notifications/schedule/set', {
      organizationId: ORG,
      userIds: [userId],
      schedule: { timeZone: 'America/New_York', digest },
    });
    expect(before.status).toBe(200);
    const links = await createLinks(service, { organizationId: ORG, userIds: [userId] });
    const { page, errors, close } = await open(links[userId]?.preferencesUrl as string, width);
    try {
      await checkLayout(page);
      await checkFocusOrder(page);
      await page.getByRole('heading', { name: 'When notifications arrive' }).waitFor();
      expect(await page.getByText('come together in one message, every Monday at 8:00 AM').count()).toBe(1);
      const zone = page.getByLabel('Time zone');
      expect(await zone.inputValue()).toBe('America/New_York');

      // Keyboard: the time zone retyped.
      await zone.focus();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.type('Europe/Berlin');
      // Mouse: Monday and Friday of the new quiet hours; keyboard: Slack unticked with Space.
      const rule = page.getByRole('group', { name: 'Quiet hours 1 (new)' });
      await rule.getByLabel('Mon', { exact: true }).click();
      await rule.getByLabel('Fri', { exact: true }).click();
      await rule.getByLabel('From').fill('22:00');
      await rule.getByLabel('Until').fill('07:00');
      await rule.getByRole('group', { name: 'Held back' }).getByLabel('Slack').focus();
      await page.keyboard.press('Space');
      expect(await rule.getByRole('group', { name: 'Held back' }).getByLabel('Slack').isChecked()).toBe(false);
      await page.screenshot({ path: join(SHOTS, `schedule-${width}-changed.png`), fullPage: true });
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(/\?saved=1$/);
      await checkLayout(page);
      // Shown as saved: the rule with its values, and room for another.
      const saved = page.getByRole('group', { name: 'Quiet hours 1', exact: true });
      expect(await saved.getByLabel('From').inputValue()).toBe('22:00');
      expect(await saved.getByLabel('Fri', { exact: true }).isChecked()).toBe(true);
      expect(await page.getByRole('group', { name: 'Quiet hours 2 (new)' }).count()).toBe(1);
      await page.screenshot({ path: join(SHOTS, `schedule-${width}-saved.png`), fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
    const answer = await service.call('/v2/notifications/schedule/get', { organizationId: ORG, userId });
    expect((answer.body.result?.data as { schedule: unknown } | undefined)?.schedule).toEqual({
      timeZone: 'Europe/Berlin',
      quietHours: [{ days: ['mon', 'fri'], start: '22:00', end: '07:00', channels: ['email'] }],
      digest,
    });
  });

  test('"Download my data": the button saves one JSON file holding the records of the export', async () => {
    const userId = `data-${width}`;
    const set = await service.call('/v2/notifications/config/set', {
      organizationId: ORG,
      userIds: [userId],
      config: { slack: 'ALL' },
      consent: { source: 'settings', text: 'Slack me, please.' },
    });
    expect(set.status).toBe(200);
    // The change is recorded from the stream: wait until the export shows it.
    const exported = async () =>
      (
        (await service.call('/v2/organizations/users/export', { organizationId: ORG, userId })).body.result?.data as
          | { records: { kind: string }[] }
          | undefined
      )?.records ?? [];
    for (let tries = 0; tries < 100 && !(await exported()).some((r) => r.kind === 'change'); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const links = await createLinks(service, { organizationId: ORG, userIds: [userId] });
    const { page, errors, close } = await open(links[userId]?.preferencesUrl as string, width);
    try {
      await checkLayout(page);
      const button = page.getByRole('button', { name: 'Download my data' });
      await button.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `preferences-${width}-download.png`), fullPage: true });
      const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
      expect(download.suggestedFilename()).toBe('my-notification-data.json');
      const file = JSON.parse(await readFile((await download.path()) as string, 'utf8')) as {
        userId: string;
        records: { kind: string }[];
      };
      expect(file.userId).toBe(userId);
      expect(file.records).toEqual(await exported());
      expect(file.records.map((record) => record.kind)).toEqual(
        expect.arrayContaining(['entry', 'change', 'consentText']),
      );
      // The page stays where it was: a download is no navigation.
      expect(page.url()).toBe(links[userId]?.preferencesUrl);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  test('the unsubscribe page: its choices, nothing changed by opening it; the button unsubscribes', async () => {
    const userId = `reader-${width}`;
    const links = await createLinks(service, {
      organizationId: ORG,
      userIds: [userId],
      documentId: 'doc-2',
      category: 'mention',
    });
    const { page, errors, status, close } = await open(links[userId]?.unsubscribeUrl as string, width);
    try {
      expect(status).toBe(200);
      await checkLayout(page);
      expect(await page.getByRole('radio').count()).toBe(3);
      expect(await page.getByLabel('Email notifications about Mentions on this document').isChecked()).toBe(true);
      await page.screenshot({ path: join(SHOTS, `unsubscribe-${width}.png`), fullPage: true });
      expect((await config(userId, { documentIds: ['doc-2'], category: 'mention' }))?.categories).toEqual({});

      await page.getByLabel('Email notifications about Mentions, on every document').check();
      await page.getByRole('button', { name: 'Unsubscribe' }).click();
      await page.getByRole('heading', { name: 'You are unsubscribed' }).waitFor();
      await page.screenshot({ path: join(SHOTS, `unsubscribe-${width}-done.png`), fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
    expect((await config(userId, { category: 'mention' }))?.categories).toEqual({ mention: { email: 'NONE' } });
  });
});

test('the unsubscribe page of a locked scope: nothing is chosen for the person, and the button asks for a choice instead of sending none', async () => {
  // Security alerts' email is locked: the link's own scope (that category) cannot be changed, and
  // the wider choice is left to the person.
  const userId = 'locked-reader';
  const links = await createLinks(service, { organizationId: ORG, userIds: [userId], category: 'security' });
  const { page, errors, requests, close } = await open(links[userId]?.unsubscribeUrl as string, 390);
  try {
    await checkLayout(page);
    const own = page.getByLabel('Email notifications about Security alerts, on every document');
    const wider = page.getByLabel('Email notifications from this organization');
    expect(await own.isDisabled()).toBe(true);
    expect(await wider.isChecked()).toBe(false);
    await page.screenshot({ path: join(SHOTS, 'unsubscribe-locked-390.png'), fullPage: true });

    // Pressed without a choice: the browser keeps the form (no request), the choice is marked invalid.
    const sent = requests.length;
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    expect(await wider.evaluate((input: { validity: { valueMissing: boolean } }) => input.validity.valueMissing)).toBe(
      true,
    );
    expect(requests.length).toBe(sent);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Unsubscribe from email notifications');

    await wider.check();
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await page.getByRole('heading', { name: 'You are unsubscribed' }).waitFor();
    // What the policy still sends is said, not promised away.
    await page.screenshot({ path: join(SHOTS, 'unsubscribe-locked-390-done.png'), fullPage: true });
    expect(await page.getByRole('status').textContent()).toBe(
      'You will no longer get email notifications from this organization, except Security alerts: your organization always sends those.',
    );
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
  expect((await config(userId))?.config).toEqual({ email: 'NONE' });
});

test('without JavaScript the pages work the same: they have no script', async () => {
  const links = await createLinks(service, { organizationId: ORG, userIds: ['no-script'] });
  const { page, close } = await open(links['no-script']?.preferencesUrl as string, 390, { javaScriptEnabled: false });
  try {
    expect(await page.locator('script').count()).toBe(0);
    await page.getByRole('group', { name: 'Mentions' }).getByLabel('In-app inbox').selectOption('MINE');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\?saved=1$/);
  } finally {
    await close();
  }
  expect((await config('no-script', { category: 'mention' }))?.categories).toEqual({ mention: { inbox: 'MINE' } });
});
