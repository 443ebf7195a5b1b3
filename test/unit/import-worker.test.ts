import { gzipSync } from 'node:zlib';
import { describe, expect, test } from '@jest/globals';
import { createImport } from '#shared/imports/create.js';
import { importJob } from '#shared/imports/kind.js';
import type { ImportRecord } from '#shared/imports/model.js';
import type { ImportFormat } from '#shared/imports/read.js';
import { importOfUpload } from '#shared/imports/upload.js';
import { runImport } from '#shared/imports/worker.js';
import type { RunOutcome } from '#shared/jobs/delivery-policy.js';
import { logger } from '#shared/platform/logger.js';
import type { Policy } from '#shared/policy/model.js';
import type { StoredEntry } from '#shared/preferences/model.js';
import { entryId } from '#shared/preferences/store.js';
import {
  Crash,
  MemoryEntries,
  MemoryFiles,
  MemoryJobRepository,
  MemoryQueue,
  MemoryTexts,
  policySource,
} from '../support/import-fakes.js';

// An import's consumer on the job engine, over in-memory stores: what it applies and counts,
// what it reports, and that a crash anywhere followed by a new delivery ends as one run would.

logger.setLogLevel('SILENT');

const ORG = 'org-1';
const CREATED = Date.parse('2026-06-01T00:00:00.000Z');
/** One clock for every import of the file: no two pages of two imports share a write time. */
let clock = CREATED;

interface Options {
  format?: ImportFormat;
  dryRun?: boolean;
  gzip?: boolean;
  policy?: Policy;
  pageLines?: number;
  entries?: MemoryEntries;
}

/** An import created, its file uploaded and its upload noticed, over fresh stores (or `entries`). */
const importOf = async (body: string | Buffer, options: Options = {}) => {
  const now = () => {
    clock += 1000;
    return new Date(clock);
  };
  const repository = new MemoryJobRepository<ImportRecord>(importJob);
  const files = new MemoryFiles();
  const entries = options.entries ?? new MemoryEntries();
  const texts = new MemoryTexts();
  const queue = new MemoryQueue();
  let ids = 0;
  const { importId } = await createImport(
    { repository, files, now: () => new Date(clock), newId: () => `imp-${++ids}` },
    {
      organizationId: ORG,
      format: options.format ?? 'jsonl',
      ...(options.dryRun ? { dryRun: true } : {}),
      ...(options.gzip ? { compression: 'gzip' as const } : {}),
    },
    'key-1',
  );
  const record = () => repository.records.get(importId) as ImportRecord;
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  files.files.set(record().fileKey, options.gzip ? gzipSync(bytes) : bytes);
  expect(await importOfUpload(repository, record().fileKey, now())).toBe(importId);
  let runs = 0;
  const deps = {
    repository,
    queue,
    now,
    files,
    entries,
    texts,
    policies: policySource(options.policy ?? {}),
    writesPerSecond: 1_000_000,
    ...(options.pageLines === undefined ? {} : { pageLines: options.pageLines }),
    newRunId: () => `run-${++runs}`,
  };
  let deliveries = 0;
  /** One delivery of the import's message. */
  const deliver = (): Promise<RunOutcome> =>
    runImport(deps, importId, { receiveCount: ++deliveries, maxReceiveCount: 5 });
  /** Deliveries until one ends the import, each failed one followed by the queue's retry. */
  const finish = async (): Promise<{ outcome: RunOutcome; crashes: number }> => {
    let crashes = 0;
    for (;;) {
      try {
        return { outcome: await deliver(), crashes };
      } catch (error) {
        expect((error as Error).message).toBe('injected crash');
        crashes += 1;
        if (crashes > 3) throw error;
      }
    }
  };
  return { importId, repository, files, entries, texts, queue, record, finish };
};

const counts = (record: ImportRecord) => ({
  status: record.status,
  rowsRead: record.rowsRead,
  rowsApplied: record.rowsApplied,
  rowsUnchanged: record.rowsUnchanged,
  rowsRejected: record.rowsRejected,
  rowsPartlyMapped: record.rowsPartlyMapped,
});
const jsonl = (lines: readonly unknown[]) =>
  lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');
const reportOf = (files: MemoryFiles, record: ImportRecord) =>
  (files.text(record.errorReportKey) ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

const consent = { source: 'settings', capturedAt: '2026-05-20T00:00:00Z', text: 'Yes to news.' };
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
/** u3 already holds what SMALL's line 6 asks. */
const seeded = () => {
  const entries = new MemoryEntries();
  const key = { organizationId: ORG, userId: 'u3', documentId: null };
  const entry: StoredEntry = {
    ...key,
    scope: 'organization',
    config: { email: 'ALL' },
    channelAt: { email: '2026-01-01T00:00:00.000Z' },
    updatedAt: '2026-01-01T00:00:00.000Z',
    updatedBy: 'key-1',
    version: 1,
  };
  entries.entries.set(entryId(key), entry);
  return entries;
};
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

  test('a dry run of a file whose lines repeat one channel counts as the real run does', async () => {
    const body = jsonl([
      { userId: 'u1', config: { email: 'NONE' } },
      { userId: 'u1', config: { email: 'NONE' } },
      { userId: 'u1', config: { email: 'ALL' } },
      { userId: 'u3', config: { email: 'ALL' } },
    ]);
    const real = await importOf(body, { entries: seeded(), pageLines: 2 });
    await real.finish();
    const dry = await importOf(body, { entries: seeded(), pageLines: 2, dryRun: true });
    await dry.finish();
    expect(counts(real.record())).toMatchObject({ rowsApplied: 2, rowsUnchanged: 2 });
    expect(counts(dry.record())).toEqual(counts(real.record()));
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
      { line: 1, applied: true, notMapped: ['channel_types.sms', 'workflows'] },
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

describe('a crash of the consumer at any point, then a new delivery: counts exact, entries as if it ran once', () => {
  /** Four pages of three: an entry changed twice in a page and again later, rejections, a schedule, consent. */
  const body = jsonl([
    { userId: 'u1', config: { email: 'NONE' } },
    { userId: 'u1', config: { inbox: 'ALL' } },
    'not json',
    { userId: 'u2', category: 'news', config: { inbox: 'ALL' }, consent },
    { userId: 'u3', config: { email: 'ALL' } },
    { userId: 'u1', schedule: { timeZone: 'Europe/Berlin' } },
    { userId: 'u1', config: { email: 'ALL' } },
    { userId: 'u5', documentId: 'doc-1', config: { slack: 'MINE' } },
    { userId: '', config: { email: 'NONE' } },
    { userId: 'u6', config: { email: 'NONE' } },
    { userId: 'u2', category: 'news', config: { inbox: 'ALL' } },
    { userId: 'u7', config: { email: 'MINE' } },
  ]);
  type Run = Awaited<ReturnType<typeof importOf>>;
  const outcome = (run: Run) => ({
    counts: counts(run.record()),
    errors: run.record().errors,
    report: reportOf(run.files, run.record()),
    values: run.entries.values(),
    writes: run.entries.writes.length,
    texts: [...run.texts.texts.values()],
  });

  test('the run without a crash', async () => {
    const run = await importOf(body, { entries: seeded(), pageLines: 3 });
    expect(await run.finish()).toEqual({ outcome: 'completed', crashes: 0 });
    expect(outcome(run)).toMatchObject({
      counts: { ...SMALL_COUNTS, rowsRead: 12, rowsApplied: 8, rowsUnchanged: 2, rowsRejected: 2 },
      writes: 8,
    });
    expect(run.repository.saves).toBe(8);
    expect(run.files.puts).toBe(3);
  });

  test.each<[string, (run: Run) => void]>([
    [
      'before the first page’s write time is saved',
      (run) => {
        run.repository.crashBeforeSave = new Crash(() => run.repository.saves === 0);
      },
    ],
    [
      'once that write time is saved, its answer lost',
      (run) => {
        run.repository.crashAfterSave = new Crash(() => run.repository.saves === 1);
      },
    ],
    [
      'after the first write',
      (run) => {
        run.entries.crashOnWrite = new Crash(() => run.entries.writes.length === 1);
      },
    ],
    [
      'after some writes of the second page',
      (run) => {
        run.entries.crashOnWrite = new Crash(() => run.entries.writes.length === 3);
      },
    ],
    [
      'after a page’s writes, before its report part',
      (run) => {
        run.files.crashOnPut = new Crash(() => run.files.puts === 0);
      },
    ],
    [
      'after a page’s writes and report, before its save',
      (run) => {
        run.repository.crashBeforeSave = new Crash(() => run.repository.saves === 1);
      },
    ],
    [
      'once a page is saved, its answer lost',
      (run) => {
        run.repository.crashAfterSave = new Crash(() => run.repository.saves === 2);
      },
    ],
    [
      'before the third page’s save',
      (run) => {
        run.repository.crashBeforeSave = new Crash(() => run.repository.saves === 5);
      },
    ],
    [
      'after the third page’s save',
      (run) => {
        run.repository.crashAfterSave = new Crash(() => run.repository.saves === 6);
      },
    ],
    [
      'once the last page is saved',
      (run) => {
        run.repository.crashAfterSave = new Crash(() => run.repository.saves === 8);
      },
    ],
    [
      'while the report is joined',
      (run) => {
        run.files.crashOnPut = new Crash(() => run.files.puts === 2);
      },
    ],
  ])('%s', async (_name, inject) => {
    const once = await importOf(body, { entries: seeded(), pageLines: 3 });
    await once.finish();
    const run = await importOf(body, { entries: seeded(), pageLines: 3 });
    inject(run);
    expect(await run.finish()).toEqual({ outcome: 'completed', crashes: 1 });
    expect(outcome(run)).toEqual(outcome(once));
  });
});
