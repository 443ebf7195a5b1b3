import { gzipSync } from 'node:zlib';
import { describe, expect, test } from '@jest/globals';
import { logger } from '#shared/platform/logger.js';
import { LAYERS_FULL_MESSAGE } from '#shared/preferences/entry-writes.js';
import { MAX_CATEGORY_LAYERS } from '#shared/preferences/layers.js';
import { entryId } from '#shared/preferences/store.js';
import { MemoryEntries } from '../support/import-fakes.js';
import { consent, counts, importOf, jsonl, ORG, reportOf, seeded } from '../support/import-run.js';

// An import's consumer on the job engine, over in-memory stores: what it applies and counts,
// and what it reports (import-worker-crash.test.ts: a crash anywhere).

logger.setLogLevel('SILENT');

/** Seven lines: four apply, one is what is stored already, two are rejected. */
const SMALL = jsonl([
  { userId: 'u1', config: { email: 'NONE' } },
  'not json',
  { userId: 'u2', category: 'news', config: { inbox: 'ALL' }, consent },
  { userId: 'u1', schedule: { timeZone: 'Europe/Berlin' } },
  { userId: '', config: { email: 'NONE' } },
  { userId: 'u3', config: { email: 'ALL' } },
  { userId: 'u4', documentId: 'doc-1', config: { slack: 'MINE' } },
]);
const SMALL_COUNTS = {
  status: 'completed',
  rowsRead: 7,
  rowsApplied: 4,
  rowsUnchanged: 1,
  rowsRejected: 2,
  rowsPartlyMapped: 0,
};

describe('a small jsonl import', () => {
  test('applies its good lines as changes by the import, counts each line once and reports the rejected', async () => {
    const run = await importOf(SMALL, { entries: seeded(), pageLines: 3 });
    expect(await run.finish()).toEqual({ outcome: 'completed', crashes: 0 });
    expect(counts(run.record())).toEqual(SMALL_COUNTS);
    expect(run.record().errors).toEqual([
      { line: 2, message: 'The line is not JSON' },
      { line: 5, message: 'userId must not be empty' },
    ]);
    expect(reportOf(run.files, run.record())).toEqual(run.record().errors);
    expect(run.entries.values()).toEqual({
      [entryId({ organizationId: ORG, userId: 'u1', documentId: null })]: {
        config: { email: 'NONE' },
        categories: {},
        schedule: { timeZone: 'Europe/Berlin' },
      },
      [entryId({ organizationId: ORG, userId: 'u2', documentId: null })]: {
        config: {},
        categories: { news: { inbox: 'ALL' } },
        schedule: null,
      },
      [entryId({ organizationId: ORG, userId: 'u3', documentId: null })]: {
        config: { email: 'ALL' },
        categories: {},
        schedule: null,
      },
      [entryId({ organizationId: ORG, userId: 'u4', documentId: 'doc-1' })]: {
        config: { slack: 'MINE' },
        categories: {},
        schedule: null,
      },
    });
    // Each applied line is a change like any other, by the import, with the row's own consent.
    expect(run.entries.writes).toHaveLength(4);
    for (const { meta } of run.entries.writes) {
      expect(meta).toMatchObject({ updatedBy: `import:${run.importId}`, cause: 'import' });
      expect(meta.evidence).toMatchObject({ via: 'import', importId: run.importId });
    }
    expect(run.entries.writes.find(({ key }) => key.userId === 'u2')?.meta).toMatchObject({
      category: 'news',
      evidence: { source: 'settings', capturedAt: '2026-05-20T00:00:00.000Z' },
    });
    expect([...run.texts.texts.values()]).toEqual(['Yes to news.']);
    // The page fields end with the import.
    expect(run.record()).not.toHaveProperty('pendingStamp');
    expect(run.record()).not.toHaveProperty('reportParts');
  });

  test('importing the same file again changes nothing and writes nothing', async () => {
    const entries = seeded();
    const first = await importOf(SMALL, { entries, pageLines: 3 });
    await first.finish();
    const before = structuredClone(entries.values());
    const writes = entries.writes.length;
    const again = await importOf(SMALL, { entries, pageLines: 3 });
    expect(await again.finish()).toEqual({ outcome: 'completed', crashes: 0 });
    expect(counts(again.record())).toEqual({ ...SMALL_COUNTS, rowsApplied: 0, rowsUnchanged: 5 });
    expect(entries.writes).toHaveLength(writes);
    expect(entries.values()).toEqual(before);
  });

  test('a dry run writes nothing and counts what a real run would', async () => {
    const dry = await importOf(SMALL, { entries: seeded(), pageLines: 3, dryRun: true });
    expect(await dry.finish()).toEqual({ outcome: 'completed', crashes: 0 });
    expect(counts(dry.record())).toEqual(SMALL_COUNTS);
    expect(dry.record().errors).toHaveLength(2);
    expect(dry.entries.writes).toEqual([]);
    expect(dry.entries.entries.size).toBe(1);
    expect(dry.texts.texts.size).toBe(0);
    expect(reportOf(dry.files, dry.record())).toHaveLength(2);
  });

  test('a dry run of a page whose lines repeat one channel counts as the real run does', async () => {
    const body = jsonl([
      { userId: 'u1', config: { email: 'NONE' } },
      { userId: 'u1', config: { email: 'NONE' } },
      { userId: 'u1', config: { email: 'ALL' } },
      { userId: 'u3', config: { email: 'ALL' } },
    ]);
    const real = await importOf(body, { entries: seeded() });
    await real.finish();
    const dry = await importOf(body, { entries: seeded(), dryRun: true });
    await dry.finish();
    expect(counts(real.record())).toMatchObject({ rowsApplied: 2, rowsUnchanged: 2 });
    expect(counts(dry.record())).toEqual(counts(real.record()));
  });

  test('the writes keep to the bound, counted in items: a row with a config and a schedule is two', async () => {
    const rows = Array.from({ length: 10 }, (_, i) => ({
      userId: `paced-${i}`,
      config: { email: 'NONE' },
      schedule: { timeZone: 'Europe/Berlin' },
    }));
    const run = await importOf(jsonl(rows), { writesPerSecond: 50 });
    const started = performance.now();
    expect(await run.finish()).toEqual({ outcome: 'completed', crashes: 0 });
    expect(run.entries.writes).toHaveLength(20);
    // 20 items at 50 a second: 400 ms at least (counting rows would allow 200 ms).
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
  });

  test('a gzip-compressed file reads as its content', async () => {
    const run = await importOf(SMALL, { entries: seeded(), pageLines: 3, gzip: true });
    expect(await run.finish()).toEqual({ outcome: 'completed', crashes: 0 });
    expect(counts(run.record())).toEqual(SMALL_COUNTS);
  });

  test('knock lines apply their mapped channels and report what has no equivalent', async () => {
    const body = jsonl([
      { userId: 'u1', preferenceSet: { channel_types: { email: false, sms: true }, workflows: { a: false } } },
      { userId: 'u2', preferenceSet: { channel_types: { in_app_feed: true } } },
    ]);
    const run = await importOf(body, { format: 'knock' });
    await run.finish();
    expect(counts(run.record())).toEqual({
      ...SMALL_COUNTS,
      rowsRead: 2,
      rowsApplied: 2,
      rowsUnchanged: 0,
      rowsRejected: 0,
      rowsPartlyMapped: 1,
    });
    expect(reportOf(run.files, run.record())).toEqual([
      { line: 1, applied: true, notMapped: ['channel_types.sms', 'workflows.a'] },
    ]);
    expect(run.record().errors).toEqual([]);
  });
});

describe('rejected lines', () => {
  test('the status lists the first 100; the report holds every one, in line order', async () => {
    const lines = Array.from({ length: 300 }, (_, index) =>
      index % 2 === 0
        ? { userId: `u${index}`, config: { email: 'NONE' } }
        : { userId: `u${index}`, config: { email: 'NO' } },
    );
    const run = await importOf(jsonl(lines), { pageLines: 40 });
    expect(await run.finish()).toEqual({ outcome: 'completed', crashes: 0 });
    expect(counts(run.record())).toMatchObject({ rowsRead: 300, rowsApplied: 150, rowsRejected: 150 });
    const rejected = Array.from({ length: 150 }, (_, index) => 2 * index + 2);
    expect(run.record().errors.map(({ line }) => line)).toEqual(rejected.slice(0, 100));
    expect(run.record().errors[0]?.message).toMatch(/config\.email/);
    expect(reportOf(run.files, run.record()).map(({ line }) => line)).toEqual(rejected);
  });

  test('a file whose first 1,000 lines are all rejected fails with their first reasons, nothing applied', async () => {
    const lines = [
      ...Array.from({ length: 1000 }, (_, index) => ({ user: `u${index}` })),
      ...Array.from({ length: 5 }, (_, index) => ({ userId: `u${index}`, config: { email: 'NONE' } })),
    ];
    const run = await importOf(jsonl(lines));
    expect(await run.finish()).toEqual({ outcome: 'failed', crashes: 0 });
    expect(counts(run.record())).toMatchObject({
      status: 'failed',
      rowsRead: 1000,
      rowsRejected: 1000,
      rowsApplied: 0,
    });
    expect(run.record().error).toMatch(/^The first 1000 rows were all rejected, so nothing was applied: line 1: /);
    expect(run.record().error).toContain('line 2: ');
    expect(run.entries.writes).toEqual([]);
    expect(run.record().errors).toHaveLength(100);
    expect(reportOf(run.files, run.record())).toHaveLength(1000);
  });
});

describe('rejected as they are written', () => {
  test('a line that would add a category layer to an entry that holds the most is rejected; the rest applies', async () => {
    const entries = new MemoryEntries();
    const key = { organizationId: ORG, userId: 'u9', documentId: null };
    const layers = Array.from({ length: MAX_CATEGORY_LAYERS }, (_, index) => [
      `c-${index}`,
      { config: { email: 'ALL' as const }, channelAt: { email: '2026-01-01T00:00:00.000Z' } },
    ]);
    entries.entries.set(entryId(key), {
      ...key,
      scope: 'organization',
      config: {},
      categories: Object.fromEntries(layers),
      updatedAt: '2026-01-01T00:00:00.000Z',
      updatedBy: 'key-1',
      version: 1,
    });
    const body = jsonl([
      { userId: 'u9', category: 'c-new', config: { email: 'NONE' } },
      { userId: 'u9', category: 'c-1', config: { email: 'NONE' } },
    ]);
    const run = await importOf(body, { entries });
    expect(await run.finish()).toEqual({ outcome: 'completed', crashes: 0 });
    expect(counts(run.record())).toMatchObject({ rowsRead: 2, rowsApplied: 1, rowsRejected: 1 });
    expect(run.record().errors).toEqual([{ line: 1, message: LAYERS_FULL_MESSAGE }]);
    expect(reportOf(run.files, run.record())).toEqual(run.record().errors);
  });

  test('a rejection’s message is cut short: a line with thousands of unknown keys does not fill the record', async () => {
    const line = Object.fromEntries(Array.from({ length: 2000 }, (_, index) => [`key${index}`, 1]));
    const run = await importOf(
      jsonl([
        { ...line, userId: 'u1', config: { email: 'NONE' } },
        { userId: 'u2', config: { email: 'NONE' } },
      ]),
    );
    await run.finish();
    const [error] = run.record().errors;
    expect(error?.message).toHaveLength(500);
    expect(error?.message.endsWith('…')).toBe(true);
  });
});

describe('a file that cannot be read on', () => {
  test('a gzip that is not gzip fails the import, nothing applied', async () => {
    const run = await importOf(SMALL, { pageLines: 3 });
    run.record().compression = 'gzip';
    expect(await run.finish()).toEqual({ outcome: 'failed', crashes: 0 });
    expect(run.record().error).toMatch(/^The file cannot be read: The file is not gzip-compressed data/);
    expect(counts(run.record())).toMatchObject({ rowsRead: 0, rowsApplied: 0 });
    expect(run.entries.writes).toEqual([]);
  });

  test('a gzip cut short mid-file fails with the counts of what was applied', async () => {
    const lines = Array.from({ length: 400 }, (_, index) => ({ userId: `user-${index}`, config: { email: 'NONE' } }));
    const whole = gzipSync(Buffer.from(jsonl(lines)));
    const run = await importOf(whole.subarray(0, Math.floor(whole.length * 0.6)), { pageLines: 50 });
    run.record().compression = 'gzip';
    expect(await run.finish()).toEqual({ outcome: 'failed', crashes: 0 });
    const record = run.record();
    expect(record.error).toMatch(/cannot be read/);
    expect(record.rowsApplied).toBeGreaterThan(0);
    expect(record.rowsApplied).toBe(record.rowsRead);
    expect(run.entries.writes).toHaveLength(record.rowsApplied);
  });

  test('a CSV quote that never closes fails the import, with the counts of what was applied and the report', async () => {
    const csv = [
      'userId,email',
      'u1,NONE',
      'u2,nope',
      'u3,ALL',
      'u4,NONE',
      'u5,ALL',
      '"u6,NONE',
      'u7,ALL',
      'u8,ALL',
    ].join('\n');
    const run = await importOf(csv, { format: 'csv', pageLines: 3 });
    expect(await run.finish()).toEqual({ outcome: 'failed', crashes: 0 });
    expect(counts(run.record())).toEqual({
      status: 'failed',
      rowsRead: 5,
      rowsApplied: 4,
      rowsUnchanged: 0,
      rowsRejected: 1,
      rowsPartlyMapped: 0,
    });
    expect(run.record().error).toMatch(/A quoted CSV field never closes/);
    expect(run.entries.writes.map(({ key }) => key.userId)).toEqual(['u1', 'u3', 'u4', 'u5']);
    expect(run.record().errors).toEqual([{ line: 3, message: expect.stringContaining('config.email') }]);
    expect(reportOf(run.files, run.record())).toEqual(run.record().errors);
  });
});
