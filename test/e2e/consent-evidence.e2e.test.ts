import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { textSha256 } from '#shared/consent/consent.js';
import type { HistoryChange } from '#shared/history/results.js';
import { eventually } from '../support/eventually.js';
import { createLinks, oneClick, postForm } from '../support/links.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// Contract 14.1 through the local twin: every way a value changes (set, reset, schedule/set,
// one-click, the preference page, a migration, an erasure) shows how it was made, in the history
// and in its `Notification Config Changed` event; a consent stated wrongly is refused whole.

let service: LocalService;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'consent-evidence-'));
  service = await startLocalService({ inMemory: false, dataDir });
}, 60_000);
afterAll(async () => {
  await service?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const ORG = 'evidence-org';

const ok = async (path: string, data: unknown) => {
  const { status, body, text } = await service.call(path, data);
  expect({ path, status, text: status === 200 ? '' : text }).toEqual({ path, status: 200, text: '' });
  return body.result?.data as Record<string, unknown>;
};

const historyOf = async (userId: string): Promise<HistoryChange[]> => {
  const { body } = await service.call('/v2/notifications/config/history', { organizationId: ORG, userId, limit: 100 });
  return (body.result?.data as { changes: HistoryChange[] } | undefined)?.changes ?? [];
};

/** The user's changes once `count` are recorded, oldest first. */
const changes = async (userId: string, count: number) =>
  (
    await eventually(
      () => historyOf(userId),
      (list) => list.length >= count,
    )
  ).reverse();

type EventLine = { 'detail-type': string; detail: HistoryChange & { id: string } };
const events = async (): Promise<EventLine[]> =>
  (await readFile(join(dataDir, 'events.jsonl'), 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as EventLine);

/** The event of each change, once it is published: its evidence is the history's. */
const expectEventsCarry = async (recorded: HistoryChange[]) => {
  const ids = new Set(recorded.map((change) => change.changeId));
  const published = await eventually(events, (lines) =>
    recorded.every((c) => lines.some((l) => l.detail.id === c.changeId)),
  );
  const byId = new Map(
    published.filter((line) => ids.has(line.detail.id)).map((line) => [line.detail.id, line.detail.evidence]),
  );
  expect(Object.fromEntries(byId)).toEqual(Object.fromEntries(recorded.map((c) => [c.changeId, c.evidence])));
};

const TEXT = 'Yes, email me when someone comments on my documents. You can change this at any time.';
const consent = {
  source: 'signup-form',
  capturedAt: '2026-01-01T00:00:00Z',
  textVersion: 'v3',
  text: TEXT,
  ipAddress: '2001:db8::1',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
};

describe('the API: what data.consent states, the text by its hash', () => {
  test('set, reset and schedule/set with a consent; a set without one is via api alone', async () => {
    const capturedAt = new Date(Date.now() - 60_000).toISOString();
    const stated = { ...consent, capturedAt };
    await ok('/v2/notifications/config/set', {
      organizationId: ORG,
      userIds: ['ann'],
      config: { email: 'ALL' },
      consent: stated,
    });
    await ok('/v2/notifications/config/reset', {
      organizationId: ORG,
      userIds: ['ann'],
      channels: ['email'],
      consent: { source: 'settings' },
    });
    await ok('/v2/notifications/schedule/set', {
      organizationId: ORG,
      userIds: ['ann'],
      schedule: { timeZone: 'Europe/Berlin' },
      consent: { source: 'settings', textVersion: 'quiet-v1' },
    });
    await ok('/v2/notifications/config/set', { organizationId: ORG, userIds: ['ann'], config: { slack: 'NONE' } });

    const recorded = await changes('ann', 4);
    const { text: _text, ...repeated } = stated;
    expect(recorded.map(({ cause, scope, evidence }) => ({ cause, scope, evidence }))).toEqual([
      {
        cause: 'set',
        scope: 'organization',
        evidence: { via: 'api', ...repeated, capturedAt, textSha256: textSha256(TEXT) },
      },
      {
        cause: 'reset',
        scope: 'organization',
        evidence: { via: 'api', source: 'settings', capturedAt: expect.any(String) },
      },
      {
        cause: 'set',
        scope: 'schedule',
        evidence: { via: 'api', source: 'settings', textVersion: 'quiet-v1', capturedAt: expect.any(String) },
      },
      { cause: 'set', scope: 'organization', evidence: { via: 'api' } },
    ]);
    // capturedAt defaults to the request's time: the change's own.
    expect(recorded[1]?.evidence).toMatchObject({ capturedAt: recorded[1]?.changedAt });
    // The text itself is in no change and no event.
    expect(JSON.stringify(recorded)).not.toContain(TEXT);
    await expectEventsCarry(recorded);
    expect(JSON.stringify(await events())).not.toContain(TEXT);
  }, 60_000);

  test('a consent stated wrongly: 400 INVALID_ARGUMENT naming the field, nothing written', async () => {
    const day = 24 * 60 * 60 * 1000;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ source: 'settings', color: 'blue' }, /color/],
      [{ source: 'settings', capturedAt: new Date(Date.now() + 60 * 60 * 1000).toISOString() }, /capturedAt.*future/],
      [{ source: 'settings', capturedAt: new Date(Date.now() - 91 * day).toISOString() }, /capturedAt.*90 days/],
      [{ source: 'settings', capturedAt: 'yesterday' }, /capturedAt.*ISO-8601/],
      [{ source: 'settings', ipAddress: '300.1.2.3' }, /ipAddress.*IPv4 or IPv6/],
      [{ source: 'settings', ipAddress: 'localhost' }, /ipAddress.*IPv4 or IPv6/],
      [{ source: 'settings', text: 'x'.repeat(5_001) }, /text.*5000/],
      [{ source: '' }, /source/],
      [{ source: 'x'.repeat(65) }, /source.*64/],
      [{ source: 'settings', textVersion: 'v'.repeat(65) }, /textVersion.*64/],
      [{ source: 'settings', userAgent: 'u'.repeat(513) }, /userAgent.*512/],
      [{}, /source/],
    ];
    const paths = [
      ['/v2/notifications/config/set', { config: { email: 'NONE' } }],
      ['/v2/notifications/config/reset', {}],
      ['/v2/notifications/schedule/set', { schedule: { timeZone: 'UTC' } }],
    ] as const;
    for (const [path, rest] of paths) {
      for (const [stated, message] of cases) {
        const { status, body } = await service.call(path, {
          organizationId: ORG,
          userIds: ['bea'],
          ...rest,
          consent: stated,
        });
        expect({ path, stated, status, code: body.error?.status }).toEqual({
          path,
          stated,
          status: 400,
          code: 'INVALID_ARGUMENT',
        });
        expect(body.error?.message).toMatch(message);
      }
    }
    // Exactly 5,000 characters of text is accepted.
    await ok('/v2/notifications/config/set', {
      organizationId: ORG,
      userIds: ['bea'],
      config: { inbox: 'MINE' },
      consent: { source: 'settings', text: 'y'.repeat(5_000) },
    });
    await service.streams?.caughtUp();
    expect((await changes('bea', 1)).map((change) => change.after)).toEqual([{ inbox: 'MINE' }]);
  }, 60_000);
});

describe('a link in an email: the key id, issue time, page version, address and user agent', () => {
  test('one-click (via link) and the preference page (via page)', async () => {
    const links = await createLinks(service, { organizationId: ORG, userIds: ['cy'] });
    const issuedAt = new Date(new Date(links.cy?.expiresAt as string).getTime() - 90 * 24 * 60 * 60 * 1000);
    const userAgent = 'Mail/1.0 (evidence test)';
    expect((await oneClick(links.cy?.unsubscribeUrl as string)).status).toBe(200);
    const saved = await postForm(links.cy?.preferencesUrl as string, 'org:slack~default=ALL');
    expect(saved.status).toBe(303);
    // A browser's user agent, as the edge received it.
    await fetch(links.cy?.preferencesUrl as string, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': userAgent },
      body: 'org:inbox~default=NONE',
    });

    const recorded = await changes('cy', 3);
    const [link, page, browser] = recorded.map((change) => change.evidence) as Record<string, string>[];
    expect(recorded.map((change) => change.cause)).toEqual(['link', 'link', 'link']);
    expect(link).toMatchObject({ via: 'link', keyId: expect.any(String), ipAddress: '127.0.0.1' });
    expect(page).toMatchObject({ via: 'page', keyId: link?.keyId, ipAddress: '127.0.0.1' });
    expect(browser).toMatchObject({ via: 'page', userAgent });
    for (const evidence of [link, page, browser]) {
      expect(evidence?.pageVersion).toMatch(/^[0-9a-f]{16}$/);
      // The link's issue time, to the second the token carries.
      expect(Math.abs(Date.parse(evidence?.issuedAt as string) - issuedAt.getTime())).toBeLessThan(2_000);
    }
    // One page version per page and language: the two pages' words and forms differ.
    expect(page?.pageVersion).toBe(browser?.pageVersion);
    expect(link?.pageVersion).not.toBe(page?.pageVersion);
    await expectEventsCarry(recorded);
  }, 60_000);
});

describe('jobs: the job id', () => {
  test("a migration's changes carry its id; an erasure's events carry its id", async () => {
    await ok('/v2/notifications/config/set', {
      organizationId: ORG,
      userIds: ['dee'],
      documentIds: ['from'],
      config: { email: 'NONE' },
    });
    const { migrationId } = (await ok('/v2/organizations/documents/migrate', {
      organizationId: ORG,
      documentId: 'from',
      newDocumentId: 'to',
    })) as { migrationId: string };
    const recorded = await changes('dee', 3);
    expect(recorded.slice(1).map((change) => change.evidence)).toEqual([
      { via: 'migration', migrationId },
      { via: 'migration', migrationId },
    ]);
    await expectEventsCarry(recorded);

    const { erasureId } = (await ok('/v2/organizations/users/erase', { organizationId: ORG, userId: 'dee' })) as {
      erasureId: string;
    };
    const erased = await eventually(events, (lines) =>
      lines.some((line) => line.detail.cause === 'erasure' && line.detail.userId === 'dee'),
    );
    const erasure = erased.filter(
      (line) => line['detail-type'] === 'Notification Config Changed' && line.detail.cause === 'erasure',
    );
    expect(erasure.map((line) => line.detail.evidence)).toEqual([{ via: 'erasure', erasureId }]);
  }, 60_000);
});
