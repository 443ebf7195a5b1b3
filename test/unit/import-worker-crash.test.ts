import { describe, expect, test } from '@jest/globals';
import { logger } from '#shared/platform/logger.js';
import { Crash, MemoryEntries } from '../support/import-fakes.js';
import { consent, counts, type ImportRun, importOf, jsonl, reportOf, seeded } from '../support/import-run.js';

// The key acceptance of an import (contract 15.1): a crash of its consumer at any point, followed
// by the queue's next delivery, ends with exact counts and the stored entries as if it ran once.

logger.setLogLevel('SILENT');

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
  const outcome = (run: ImportRun) => ({
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
      counts: {
        status: 'completed',
        rowsRead: 12,
        rowsApplied: 8,
        rowsUnchanged: 2,
        rowsRejected: 2,
        rowsPartlyMapped: 0,
      },
      writes: 8,
    });
    expect(run.repository.saves).toBe(8);
    expect(run.files.puts).toBe(3);
  });

  test.each<[string, (run: ImportRun) => void]>([
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

describe('lines of one page that set one channel of one entry twice', () => {
  // u3 holds email ALL: line 1 changes nothing, line 2 turns it off, line 3 sets its schedule
  // twice over two lines.
  const body = jsonl([
    { userId: 'u3', config: { email: 'ALL' } },
    { userId: 'u3', config: { email: 'NONE' } },
    { userId: 'u3', schedule: { timeZone: 'UTC' } },
    { userId: 'u3', schedule: null },
    { userId: 'u8', config: { inbox: 'NONE' } },
  ]);

  test.each([1, 2, 3])('a crash after %i writes counts each line as one run does', async (writes) => {
    const once = await importOf(body, { entries: seeded(), pageLines: 10 });
    await once.finish();
    expect(counts(once.record())).toMatchObject({ rowsApplied: 4, rowsUnchanged: 1 });
    const run = await importOf(body, { entries: seeded(), pageLines: 10 });
    run.entries.crashOnWrite = new Crash(() => run.entries.writes.length === writes);
    expect(await run.finish()).toEqual({ outcome: 'completed', crashes: 1 });
    expect(counts(run.record())).toEqual(counts(once.record()));
    expect(run.entries.values()).toEqual(once.entries.values());
    expect(run.entries.writes).toHaveLength(once.entries.writes.length);
  });

  test('a crash once the page is written, before it is saved, counts each line as one run does', async () => {
    const once = await importOf(body, { entries: seeded(), pageLines: 10 });
    await once.finish();
    const run = await importOf(body, { entries: seeded(), pageLines: 10 });
    run.repository.crashBeforeSave = new Crash(() => run.entries.writes.length === once.entries.writes.length);
    expect(await run.finish()).toEqual({ outcome: 'completed', crashes: 1 });
    expect(counts(run.record())).toEqual(counts(once.record()));
    expect(run.entries.values()).toEqual(once.entries.values());
    expect(run.entries.writes).toHaveLength(once.entries.writes.length);
  });
});

describe('a crash as an import fails', () => {
  test('once its first 1,000 rejected lines are saved: the next delivery fails it alike, nothing applied', async () => {
    const lines = [
      ...Array.from({ length: 1000 }, (_, index) => ({ user: `u${index}` })),
      ...Array.from({ length: 5 }, (_, index) => ({ userId: `u${index}`, config: { email: 'NONE' } })),
    ];
    const once = await importOf(jsonl(lines));
    await once.finish();
    const run = await importOf(jsonl(lines));
    run.repository.crashAfterSave = new Crash(() => run.repository.saves === 1);
    expect(await run.finish()).toEqual({ outcome: 'failed', crashes: 1 });
    expect(run.entries.writes).toEqual([]);
    expect(counts(run.record())).toEqual(counts(once.record()));
    expect(run.record().error).toBe(once.record().error);
  });

  test('once the page before an unreadable CSV quote is saved: the next delivery fails it alike', async () => {
    const csv = ['userId,email', 'u1,NONE', 'u2,nope', 'u3,ALL', 'u4,NONE', '"u5,ALL', 'u6,ALL'].join('\n');
    const once = await importOf(csv, { format: 'csv', pageLines: 3 });
    await once.finish();
    const run = await importOf(csv, { format: 'csv', pageLines: 3 });
    run.repository.crashAfterSave = new Crash(() => run.repository.saves === 4);
    expect(await run.finish()).toEqual({ outcome: 'failed', crashes: 1 });
    expect(counts(run.record())).toEqual(counts(once.record()));
    expect(run.record().error).toBe(once.record().error);
    expect(reportOf(run.files, run.record())).toEqual(reportOf(once.files, once.record()));
  });
});

test('a crash once a line removed the schedule of an entry that held nothing else (the entry is gone) counts it applied', async () => {
  const body = jsonl([
    { userId: 'u1', schedule: { timeZone: 'UTC' } },
    { userId: 'u2', config: { email: 'NONE' } },
  ]);
  const removal = jsonl([
    { userId: 'u1', schedule: null },
    { userId: 'u2', config: { email: 'ALL' } },
  ]);
  const entries = new MemoryEntries();
  await (await importOf(body, { entries })).finish();
  const before = structuredClone([...entries.entries]);
  const once = await importOf(removal, { entries });
  await once.finish();
  expect(counts(once.record())).toMatchObject({ rowsApplied: 2, rowsUnchanged: 0 });
  entries.entries.clear();
  for (const [id, entry] of before) entries.entries.set(id, entry);
  const run = await importOf(removal, { entries });
  run.repository.crashBeforeSave = new Crash(() => run.repository.saves === 1);
  expect(await run.finish()).toEqual({ outcome: 'completed', crashes: 1 });
  expect(counts(run.record())).toEqual(counts(once.record()));
});

describe('an import continued in a new message after each page, near its deadline', () => {
  test('ends as one run would, even continued between a page’s write time and its writes', async () => {
    const body = jsonl([
      { userId: 'u1', config: { email: 'NONE' } },
      { userId: 'u1', config: { email: 'ALL' } },
      'not json',
      { userId: 'u3', config: { email: 'ALL' } },
      { userId: 'u1', schedule: { timeZone: 'UTC' } },
      { userId: 'u2', config: { inbox: 'MINE' } },
    ]);
    const once = await importOf(body, { entries: seeded(), pageLines: 2 });
    await once.finish();
    const run = await importOf(body, { entries: seeded(), pageLines: 2, onePagePerDelivery: true });
    expect(await run.finish()).toEqual({ outcome: 'completed', crashes: 0 });
    expect(run.queue.sent.length).toBeGreaterThan(4);
    expect(counts(run.record())).toEqual(counts(once.record()));
    expect(run.entries.values()).toEqual(once.entries.values());
    expect(run.entries.writes).toHaveLength(once.entries.writes.length);
    expect(reportOf(run.files, run.record())).toEqual(reportOf(once.files, once.record()));
  });

  test('a dry run crashed before a page’s save counts as one dry run would', async () => {
    const body = jsonl([
      { userId: 'u1', config: { email: 'NONE' } },
      'not json',
      { userId: 'u3', config: { email: 'ALL' } },
      { userId: 'u2', config: { inbox: 'MINE' } },
    ]);
    const once = await importOf(body, { entries: seeded(), pageLines: 2, dryRun: true });
    await once.finish();
    const run = await importOf(body, { entries: seeded(), pageLines: 2, dryRun: true });
    run.repository.crashBeforeSave = new Crash(() => run.repository.saves === 1);
    expect(await run.finish()).toEqual({ outcome: 'completed', crashes: 1 });
    expect(counts(run.record())).toEqual(counts(once.record()));
    expect(run.entries.writes).toEqual([]);
  });
});
