import { setTimeout as sleep } from 'node:timers/promises';
import { textSha256 } from '#shared/consent/consent.js';
import type { ConsentTextStore } from '#shared/consent/text-store.js';
import type { FileStore } from '#shared/files/store.js';
import type { Delivery, RunOutcome } from '#shared/jobs/delivery-policy.js';
import type { RunDeps } from '#shared/jobs/pages.js';
import { runJob } from '#shared/jobs/run.js';
import type { JobStep, PageResult } from '#shared/jobs/step.js';
import type { Policy } from '#shared/policy/model.js';
import { importActor } from '#shared/preferences/change-attribution.js';
import type { EntryChange, EntryChangeWriter } from '#shared/preferences/entry-changes.js';
import { LAYERS_FULL_MESSAGE } from '#shared/preferences/entry-writes.js';
import { type PolicySource, policyOf } from '#shared/preferences/locks.js';
import type { EntryKey, StoredEntry } from '#shared/preferences/model.js';
import { entryId, type PreferenceStore } from '#shared/preferences/store.js';
import { importJob } from './kind.js';
import type { ImportRecord, LineError } from './model.js';
import { judgeChanges, type Verdict } from './plan.js';
import { ImportFileError, type ReadLine, readCsv, readJsonLines } from './read.js';
import { joinReport, type ReportLine, writeReportPart } from './report.js';
import { type CheckedLine, checkLine, type ImportChange } from './rows.js';

/** Lines per page: the first page holds the first 1,000, which decide whether the file is one at all. */
export const PAGE_LINES = 1000;
/** Rejected lines the status lists (the report has every one). */
export const MAX_LISTED_ERRORS = 100;
/** A rejection's message is cut to this length (a line with thousands of unknown keys names them all). */
const MAX_MESSAGE_LENGTH = 500;

export interface ImportWorkerDeps extends RunDeps<ImportRecord> {
  files: Pick<FileStore, 'read' | 'readAll' | 'put' | 'startParts' | 'putPart' | 'completeParts'>;
  entries: Pick<PreferenceStore, 'getEntries'> & EntryChangeWriter;
  policies: PolicySource;
  texts: Pick<ConsentTextStore, 'putText'>;
  /** The deployment's bound on an import's entry writes per second, so that live traffic keeps its latency. */
  writesPerSecond: number;
  pageLines?: number;
}

const cut = (message: string) =>
  message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : message;

/** The lines of the file after `position`, checked. */
const linesAfter = async function* (
  deps: ImportWorkerDeps,
  record: ImportRecord,
  check: (read: ReadLine) => CheckedLine,
): AsyncGenerator<CheckedLine> {
  const source = await deps.files.read(record.fileKey);
  const gzip = record.compression === 'gzip';
  const reader = record.format === 'csv' ? readCsv(source, gzip) : readJsonLines(source, gzip);
  try {
    for await (const read of reader) if (read.line > record.line) yield check(read);
  } finally {
    source.destroy();
  }
};

/** What a page read: its checked lines, and the reason the file cannot be read on, if it cannot. */
interface PageRead {
  lines: CheckedLine[];
  unreadable?: string;
  /** The line read that starts the next page (it sets again what a line of this page sets). */
  next?: CheckedLine;
}

/** What a line sets: each channel of an entry's layer, and an entry's schedule. */
const targetsOf = (line: CheckedLine): string[] =>
  'changes' in line
    ? line.changes.flatMap((change) => {
        const id = entryId(change.key);
        return [
          ...Object.keys(change.config ?? {}).map((channel) => JSON.stringify([id, change.category ?? null, channel])),
          ...(change.schedule === undefined ? [] : [JSON.stringify([id])]),
        ];
      })
    : [];

/**
 * Up to `size` lines, after `first`. A page that writes sets each channel (and schedule) of an
 * entry once at most: a line that sets one again starts the next page. So a run of the page
 * after one that died in it tells by the page's write time alone which lines were written, and
 * what a line found stored before the page (plan.ts), whatever the order of the writes that died.
 * A dry run's pages are not cut: it writes nothing, and judges a line after the page's earlier ones.
 */
const readPage = async (
  lines: AsyncIterator<CheckedLine>,
  size: number,
  first: CheckedLine | undefined,
  cut: boolean,
): Promise<PageRead> => {
  const read: CheckedLine[] = [];
  const targets = new Set<string>();
  // Claims a line's targets for the page; false when the page already sets one. Each line's
  // targets are worked out once, and only when the page may be cut.
  const claim = (line: CheckedLine) => {
    if (!cut) return true;
    const own = targetsOf(line);
    if (own.some((target) => targets.has(target))) return false;
    for (const target of own) targets.add(target);
    return true;
  };
  if (first && claim(first)) read.push(first);
  try {
    while (read.length < size) {
      const next = await lines.next();
      if (next.done) break;
      if (!claim(next.value)) return { lines: read, next: next.value };
      read.push(next.value);
    }
    return { lines: read };
  } catch (error) {
    if (!(error instanceof ImportFileError)) throw error;
    return { lines: read, unreadable: error.message };
  }
};

/**
 * An import's pages under the engine's lease (docs/design.md, Imports). Each page reads the next
 * PAGE_LINES lines from the saved position and checks them (it ends early at a line that would
 * set a channel or schedule the page already sets). Before it writes, it saves the write time it
 * will stamp on what it writes and which of its lines apply, judged against the entries as they
 * are then (a page of its own, with no counts): should the run die before the page is saved, the
 * page is read again, what carries that time is not written again, and the lines saved as
 * applying count as applied, so counts stay exact. Then it writes the changed entries (at most
 * `writesPerSecond`), writes its part of the error report, and saves its counts and position. A
 * page that fails the import saves why (`failure`) with its counts, so a rerun fails at once. A
 * dry run judges and counts alike and writes no entry.
 */
export const importStep: JobStep<ImportRecord, ImportWorkerDeps> = (deps, { record, now }) => {
  const { pageLines = PAGE_LINES } = deps;
  let lines: AsyncIterator<CheckedLine> | undefined;
  let policy: Policy | undefined;
  let position = record.line;
  let stamp = record.pendingStamp ?? undefined;
  let applied = record.pendingApplied ?? undefined;
  let errors = record.errors;
  let reportParts = record.reportParts;
  // A page read whose write time is being saved, and the entries it found: the next call writes it.
  let held: (PageRead & { stored: StoredEntry[] }) | undefined;
  // The line read that starts the next page.
  let following: CheckedLine | undefined;

  const open = async () => {
    policy = await policyOf(deps.policies, record.organizationId);
    const context = {
      organizationId: record.organizationId,
      importId: record.importId,
      policy,
      checkedAt: new Date(record.createdAt),
    };
    return linesAfter(deps, record, (read) => checkLine(record.format, read, context))[Symbol.asyncIterator]();
  };

  return async (): Promise<PageResult> => {
    // A run that saved its failing page died before it could mark the import failed.
    if (record.failure !== null) return { outcome: 'failed', reason: record.failure, counts: {} };
    lines ??= await open();
    const page = held ?? (await readPage(lines, pageLines, following, !record.dryRun));
    const stored = held?.stored;
    if (!held) following = page.next;
    held = undefined;
    const changed = page.lines.some((line) => 'changes' in line);
    if (page.lines.length === 0) {
      if (page.unreadable !== undefined) return failed(page, `The file cannot be read: ${page.unreadable}`);
      if (reportParts.length > 0) await joinReport(deps.files, record.errorReportKey, reportParts);
      return { outcome: 'done' };
    }
    if (position === 0 && !changed) {
      const firsts = page.lines.slice(0, 3).map((line) => `line ${line.line}: ${'error' in line ? line.error : ''}`);
      return failed(
        page,
        `The first ${page.lines.length} rows were all rejected, so nothing was applied: ${firsts.join('; ')}`,
      );
    }
    if (changed && !record.dryRun && stamp === undefined) {
      // Saved with the write time: which lines apply, judged before any is written (a rerun
      // cannot tell it from the entries alone: a removed schedule may have taken its entry along).
      held = { ...page, stored: await storedOf(deps, page.lines) };
      stamp = now().toISOString();
      applied = appliedLines(page.lines, judgeChanges(changesOf(page.lines), held.stored, undefined));
      return { outcome: 'page', counts: {}, fields: { pendingStamp: stamp, pendingApplied: applied } };
    }
    const counts = await applyPage(deps, record, page.lines, record.dryRun ? undefined : stamp, stored, applied);
    const fields = await pageFields(page, counts.report);
    stamp = undefined;
    applied = undefined;
    if (page.unreadable !== undefined) {
      if (reportParts.length > 0) await joinReport(deps.files, record.errorReportKey, reportParts);
      const reason = `The file cannot be read on after line ${position}: ${page.unreadable}`;
      return { outcome: 'failed', reason, counts: counts.counts, fields: { ...fields, failure: reason } };
    }
    return { outcome: 'page', counts: counts.counts, fields };
  };

  /** The page's report part and listed errors written, and where the next page starts. */
  async function pageFields(page: PageRead, report: ReportLine[]) {
    const first = page.lines[0]?.line ?? position + 1;
    if (report.length > 0) {
      await writeReportPart(deps.files, record.errorReportKey, first, report);
      if (!reportParts.includes(first)) reportParts = [...reportParts, first];
    }
    const rejected = report.filter((line): line is LineError => 'message' in line);
    errors = [...errors, ...rejected].slice(0, MAX_LISTED_ERRORS);
    position = page.lines.at(-1)?.line ?? position;
    return { line: position, pendingStamp: null, pendingApplied: null, reportParts, errors };
  }

  async function failed(page: PageRead, reason: string): Promise<PageResult> {
    const report = page.lines.flatMap((line) =>
      'error' in line ? [{ line: line.line, message: cut(line.error) }] : [],
    );
    const fields = await pageFields(page, report);
    if (reportParts.length > 0) await joinReport(deps.files, record.errorReportKey, reportParts);
    return {
      outcome: 'failed',
      reason,
      counts: { rowsRead: page.lines.length, rowsRejected: report.length },
      fields: { ...fields, failure: reason },
    };
  }
};

interface PageCounts {
  counts: Record<string, number>;
  report: ReportLine[];
}

const changesOf = (lines: readonly CheckedLine[]): ImportChange[] =>
  lines.flatMap((line) => ('changes' in line ? line.changes : []));

/** The entries the lines' changes are about, as stored. */
const storedOf = async (deps: ImportWorkerDeps, lines: readonly CheckedLine[]): Promise<StoredEntry[]> => {
  const keys = new Map<string, EntryKey>(changesOf(lines).map((change) => [entryId(change.key), change.key]));
  return keys.size > 0 ? await deps.entries.getEntries([...keys.values()]) : [];
};

/** The lines some change of which is not 'unchanged', by the verdicts of the lines' changes in order. */
const appliedLines = (lines: readonly CheckedLine[], verdicts: readonly Verdict[]): number[] => {
  let at = 0;
  return lines.flatMap((line) => {
    if (!('changes' in line)) return [];
    const own = verdicts.slice(at, at + line.changes.length);
    at += line.changes.length;
    return own.some((verdict) => verdict !== 'unchanged') ? [line.line] : [];
  });
};

/**
 * Judges and (unless `dryRun`) writes a page's lines; its counts and report lines. `known`: the
 * entries as this run read them before it saved the write time; `applied`: the lines that apply,
 * as judged then (else as judged now).
 */
const applyPage = async (
  deps: ImportWorkerDeps,
  record: ImportRecord,
  lines: readonly CheckedLine[],
  stamp: string | undefined,
  known: StoredEntry[] | undefined,
  applied: readonly number[] | undefined,
): Promise<PageCounts> => {
  const started = performance.now();
  const changes = lines.flatMap((line) => ('changes' in line ? line.changes.map((change) => ({ line, change })) : []));
  const stored = known ?? (await storedOf(deps, lines));
  const verdicts = judgeChanges(
    changes.map(({ change }) => change),
    stored,
    stamp,
  );
  const rejected = new Map<number, string>();
  if (!record.dryRun) {
    const writes = changes.filter((_, index) => verdicts[index] === 'write');
    await storeTexts(
      deps,
      record,
      writes.map(({ change }) => change),
      stamp as string,
    );
    const entryChanges = writes.flatMap(({ line, change }) =>
      entryChangesOf(record, change, stamp as string, line.line),
    );
    const outcomes = await deps.entries.writeChanges(
      entryChanges.map(({ change }) => change),
      new Set(stored.map(entryId)),
      deps.writesPerSecond,
    );
    entryChanges.forEach(({ line }, index) => {
      if (outcomes[index] === 'layersFull') rejected.set(line, LAYERS_FULL_MESSAGE);
    });
    // The bound counts items written (a row with a config and a schedule writes two). writeChanges
    // spreads its batches at it; the page then lasts at least its items' share of the bound, which
    // also covers the changes written alone after a batch.
    const leastMs = (entryChanges.length / deps.writesPerSecond) * 1000;
    const spent = performance.now() - started;
    if (spent < leastMs) await sleep(leastMs - spent);
  }
  const counts = { rowsRead: lines.length, rowsApplied: 0, rowsUnchanged: 0, rowsRejected: 0, rowsPartlyMapped: 0 };
  const report: ReportLine[] = [];
  const applies = new Set(applied ?? appliedLines(lines, verdicts));
  for (const line of lines) {
    if ('error' in line) {
      counts.rowsRejected += 1;
      report.push({ line: line.line, message: cut(line.error) });
      continue;
    }
    const layersFull = rejected.get(line.line);
    if (layersFull !== undefined) {
      counts.rowsRejected += 1;
      report.push({ line: line.line, message: layersFull });
    } else if (applies.has(line.line)) {
      counts.rowsApplied += 1;
      if (line.unmapped.length > 0) {
        counts.rowsPartlyMapped += 1;
        report.push({ line: line.line, applied: true, notMapped: line.unmapped });
      }
    } else counts.rowsUnchanged += 1;
  }
  return { counts, report };
};

/** The consent texts the page's changes refer to, stored once each before any change names them. */
const storeTexts = async (deps: ImportWorkerDeps, record: ImportRecord, changes: ImportChange[], at: string) => {
  const texts = new Map<string, string>();
  for (const { consentText } of changes) if (consentText !== undefined) texts.set(textSha256(consentText), consentText);
  for (const [sha, text] of texts) await deps.texts.putText(record.organizationId, sha, text, at);
};

/** A line's change as the entry writes it takes: its channels, then its schedule, stamped by the page. */
const entryChangesOf = (
  record: ImportRecord,
  change: ImportChange,
  stamp: string,
  line: number,
): { line: number; change: EntryChange }[] => {
  const meta = {
    updatedAt: stamp,
    updatedBy: importActor(record.importId),
    cause: 'import' as const,
    ...(change.category === undefined ? {} : { category: change.category }),
    evidence: change.evidence,
  };
  return [
    ...(change.config ? [{ line, change: { key: change.key, meta, config: change.config } }] : []),
    ...(change.schedule === undefined ? [] : [{ line, change: { key: change.key, meta, schedule: change.schedule } }]),
  ];
};

/** Performs (part of) one import for one queue delivery: the engine's run with the import step. */
export const runImport = (deps: ImportWorkerDeps, importId: string, delivery: Delivery): Promise<RunOutcome> =>
  runJob(importJob, importStep, deps, importId, delivery);
