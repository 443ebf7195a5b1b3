import { describe, expect, test } from '@jest/globals';
import { jsonBytes } from '#shared/api/answer-size.js';
import { textSha256 } from '#shared/consent/consent.js';
import { DynamoConsentTextStore } from '#shared/consent/text-store.js';
import { INVALID_CURSOR_MESSAGE } from '#shared/history/cursor.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import type { HistoryChange } from '#shared/history/results.js';
import { newKeyringDocument, staticKeyring } from '#shared/links/keyring.js';
import { DynamoLinkRevoker, DynamoRevocationReader } from '#shared/links/revocation.js';
import { type ExportDeps, exportUser } from '#shared/people/export.js';
import type { ExportRecord, ExportUserResult } from '#shared/people/records.js';
import { DynamoErasureEntryStore } from '#shared/preferences/dynamo-erasure-entries.js';
import { DynamoScheduleStore } from '#shared/preferences/dynamo-schedule-store.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { setConfig } from '#shared/preferences/service.js';
import { uniqueId, useTestDynamo } from '../support/dynamo.js';

// Contract 14.2 against DynamoDB Local: a user's export pages through every record of theirs
// exactly once (entries, the schedule, changes, the consent texts the changes refer to, once
// each, the link revocation), within 1,000 records and 1 MB a page; the cursor is bound to the
// organization and the user, and refused altered; after an erasure, the erasure's record alone.

const dynamo = useTestDynamo();
const keyring = staticKeyring(newKeyringDocument());

const depsFor = (extra: Partial<ExportDeps> = {}): ExportDeps => ({
  entries: new DynamoErasureEntryStore(dynamo.doc, dynamo.tables.config),
  reader: new DynamoPreferenceStore(dynamo.doc, dynamo.tables.config),
  history: new DynamoHistoryStore(dynamo.doc, dynamo.tables.history),
  texts: new DynamoConsentTextStore(dynamo.doc, dynamo.tables.config),
  revocations: new DynamoRevocationReader(dynamo.doc, dynamo.tables.config, keyring),
  keys: keyring,
  ...extra,
});

/** Every page of the export, in order. */
const allPages = async (deps: ExportDeps, organizationId: string, userId: string) => {
  const pages: ExportUserResult[] = [];
  let cursor: string | undefined;
  do {
    const page = await exportUser(deps, { organizationId, userId, ...(cursor ? { cursor } : {}) });
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
};

/** A record's identity: what may appear once. */
const identity = (record: ExportRecord): string => {
  switch (record.kind) {
    case 'entry':
      return `entry ${JSON.stringify(record.documentId)}`;
    case 'change':
      return `change ${record.changeId}`;
    case 'consentText':
      return `text ${record.sha256}`;
    default:
      return record.kind;
  }
};

const TEXTS = ['First wording.', 'Second wording, longer. '.repeat(40), 'Third.'];

/** A user with entries on `documents` documents and the organization level, a schedule, `changes` changes (some citing texts) and a revocation. */
const seedUser = async (documents: number, changes: number) => {
  const organizationId = uniqueId('export-org');
  const userId = 'ulla';
  const preferences = new DynamoPreferenceStore(dynamo.doc, dynamo.tables.config);
  const texts = new DynamoConsentTextStore(dynamo.doc, dynamo.tables.config);
  const documentIds = Array.from({ length: documents }, (_, i) => `doc-${String(i).padStart(5, '0')}`);
  for (let start = 0; start < documentIds.length; start += 30) {
    await setConfig(
      { store: preferences, texts },
      {
        organizationId,
        userIds: [userId],
        documentIds: documentIds.slice(start, start + 30),
        config: { email: 'NONE' },
        ...(start === 0 ? { consent: { source: 'settings', text: TEXTS[0] as string } } : {}),
      },
      'ak_1',
    );
  }
  await setConfig(
    { store: preferences },
    { organizationId, userIds: [userId], config: { inbox: 'MINE' }, category: 'comment' },
    'ak_1',
  );
  await new DynamoScheduleStore(dynamo.doc, dynamo.tables.config).setSchedule(
    { organizationId, userId, documentId: null },
    { timeZone: 'Europe/Berlin' },
    { updatedAt: new Date().toISOString(), updatedBy: 'ak_1' },
  );
  for (const text of TEXTS) await texts.putText(organizationId, textSha256(text), text, new Date().toISOString());
  const history = new DynamoHistoryStore(dynamo.doc, dynamo.tables.history);
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  for (let start = 0; start < changes; start += 500) {
    await history.recordAll(
      Array.from({ length: Math.min(500, changes - start) }, (_, j) => {
        const i = start + j;
        const text = i % 7 === 0 ? TEXTS[i % TEXTS.length] : undefined;
        const change: HistoryChange = {
          changeId: `c-${i}`,
          organizationId,
          userId,
          documentId: documentIds[i % documents] ?? null,
          scope: 'document',
          category: null,
          cause: 'set',
          changedAt: new Date(base + i * 1000).toISOString(),
          changedBy: 'ak_1',
          evidence:
            text === undefined ? { via: 'api' } : { via: 'api', source: 'settings', textSha256: textSha256(text) },
          before: {},
          after: { email: 'NONE' },
        };
        return { recorded: { change, sequenceNumber: String(10_000 + i) }, expiresAt: 2_000_000_000 };
      }),
    );
  }
  await new DynamoLinkRevoker(dynamo.doc, dynamo.tables.config, keyring).revoke(organizationId, [userId], new Date());
  return { organizationId, userId };
};

const expectEveryRecordOnce = (pages: ExportUserResult[], documents: number, changes: number) => {
  const records = pages.flatMap((page) => page.records);
  const ids = records.map(identity);
  expect(new Set(ids).size).toBe(ids.length);
  const count = (kind: ExportRecord['kind']) => records.filter((record) => record.kind === kind).length;
  expect({
    entry: count('entry'),
    schedule: count('schedule'),
    change: count('change'),
    consentText: count('consentText'),
    linkRevocation: count('linkRevocation'),
  }).toEqual({ entry: documents + 1, schedule: 1, change: changes, consentText: TEXTS.length, linkRevocation: 1 });
  // Each text the changes cite is there, after the first change that cites it.
  for (const text of TEXTS) {
    const at = ids.indexOf(`text ${textSha256(text)}`);
    expect(at).toBeGreaterThan(ids.findIndex((id) => id.startsWith('change')));
    expect(records[at]).toEqual({ kind: 'consentText', sha256: textSha256(text), text });
  }
};

describe('users/export', () => {
  test('2,000 documents, a schedule and 5,000 changes: every record exactly once, pages within 1,000 records and 1 MB', async () => {
    const { organizationId, userId } = await seedUser(2_000, 5_000);
    const pages = await allPages(depsFor(), organizationId, userId);
    for (const page of pages) {
      expect(page.records.length).toBeLessThanOrEqual(1_000);
      expect(jsonBytes(page.records)).toBeLessThanOrEqual(1_000_000);
      expect(page).toMatchObject({ organizationId, userId });
    }
    // Full pages: 2,001 entries + schedule + revocation + 5,000 changes + 3 texts.
    expect(pages.length).toBe(Math.ceil(7_006 / 1_000));
    expectEveryRecordOnce(pages, 2_000, 5_000);
  }, 180_000);

  test('small pages that stop inside every kind still hold every record once', async () => {
    const { organizationId, userId } = await seedUser(40, 120);
    for (const limits of [
      { records: 7, bytes: 1_000_000 },
      { records: 1_000, bytes: 2_500 },
      { records: 2, bytes: 1_000_000 },
    ]) {
      const pages = await allPages(depsFor({ limits }), organizationId, userId);
      for (const page of pages) expect(page.records.length).toBeLessThanOrEqual(limits.records);
      expectEveryRecordOnce(pages, 40, 120);
    }
  }, 60_000);

  test('a cursor is bound to the organization and the user, and refused altered', async () => {
    const { organizationId, userId } = await seedUser(3, 5);
    const deps = depsFor({ limits: { records: 2, bytes: 1_000_000 } });
    const first = await exportUser(deps, { organizationId, userId });
    const cursor = first.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));
    const refused = async (request: { organizationId: string; userId: string; cursor: string }) =>
      expect(exportUser(deps, request)).rejects.toMatchObject({
        status: 'INVALID_ARGUMENT',
        message: INVALID_CURSOR_MESSAGE,
      });
    await refused({ organizationId, userId: 'someone-else', cursor });
    await refused({ organizationId: 'other-org', userId, cursor });
    const flipped = `${cursor.slice(0, -2)}${cursor.at(-2) === 'A' ? 'B' : 'A'}${cursor.at(-1)}`;
    await refused({ organizationId, userId, cursor: flipped });
    await refused({ organizationId, userId, cursor: 'not-a-cursor' });
  }, 60_000);

  test('after an erasure completed: its status record alone', async () => {
    const { organizationId, userId } = await seedUser(2, 2);
    const erasure = {
      kind: 'erasure' as const,
      erasureId: 'e-1',
      organizationId,
      userId,
      status: 'completed' as const,
      erased: 3,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:01.000Z',
      completedAt: '2026-01-01T00:00:01.000Z',
    };
    const pages = await allPages(depsFor({ erasures: { lastCompleted: async () => erasure } }), organizationId, userId);
    expect(pages.map((page) => page.records)).toEqual([[erasure]]);
  });
});
