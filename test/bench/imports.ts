import { fileURLToPath } from 'node:url';
import { startEmbeddedDynamo } from '#local/dynamo.js';
import { EXPORT_CONSUMER_FUNCTION, IMPORT_CONSUMER_FUNCTION, memoryOf } from '#service/functions.js';
import { DEFAULT_IMPORT_WRITES_PER_SECOND } from '#shared/platform/environment.js';
import { runChild } from './child.js';
import type { DynamoFigures, Measured, PipelineFigures } from './imports-child.js';
import type { ResolveDuringImport, Window } from './imports-resolve-child.js';
import { FULL_VCPU_MB, projectedSeconds } from './lambda-cpu.js';
import { goal, type Section, section } from './report.js';
import { fmtBytes, fmtMs, fmtNum, fmtRatio } from './stats.js';

const IMPORT_MEMORY_MB = memoryOf(IMPORT_CONSUMER_FUNCTION);
const EXPORT_MEMORY_MB = memoryOf(EXPORT_CONSUMER_FUNCTION);
/** The goals: a million rows (or entries) within 10 minutes; memory flat within 1.2x. */
const GOAL_ROWS = 1_000_000;
const GOAL_SECONDS = 600;
const MEMORY_GOAL_RATIO = 1.2;

const CHILD = fileURLToPath(new URL('./imports-child.ts', import.meta.url));
const RESOLVE_CHILD = fileURLToPath(new URL('./imports-resolve-child.ts', import.meta.url));
/** The goal: config/resolve's p99 during an import at most 1.2x its p99 without one. */
const RESOLVE_GOAL_RATIO = 1.2;

export interface ImportsOptions {
  /** Rows of the two streamed imports into a store that keeps nothing (CPU and memory peaks). */
  pipelineRows: [number, number];
  /** Rows of each import into DynamoDB Local; the export reads the jsonl one's entries back. */
  storeRows: number;
  /** The formats imported into DynamoDB Local (jsonl first). */
  storeFormats: ('jsonl' | 'csv')[];
  /**
   * config/resolve on the twin without and during an import (none: not measured, as in a quick
   * run, where the twin's start is most of its time).
   */
  resolve?: ResolveOptions;
}

interface ResolveOptions {
  /** Requests a window, sent at `rate` a second over `connections`. */
  requests: number;
  connections: number;
  rate: number;
  /** The import's rows (enough to outlast the window) and its bound on writes a second. */
  rows: number;
  writesPerSecond: number;
}

const us = (seconds: number) => `${(seconds * 1e6).toFixed(1)} us`;
const perItem = (m: Measured) => m.cpuSeconds / Math.max(1, m.rows);

/** A row of the imports table: one import's figures, then its calls and writes per row (empty with no store). */
const importRow = (label: string, m: Measured & { applied: number }, calls: string[] = ['', '']): string[] => [
  label,
  fmtNum(m.rows),
  fmtNum(m.applied),
  fmtMs(m.ms),
  fmtSeconds(m.cpuSeconds),
  us(perItem(m)),
  fmtNum(1 / projectedSeconds(perItem(m), IMPORT_MEMORY_MB)),
  ...calls,
];
const fmtSeconds = (seconds: number) => `${fmtNum(seconds, 1)} s`;

/**
 * Bulk import and export (contract 15, docs/design.md, Imports): the import consumer's CPU per
 * row on the DynamoDB Local of the twin (the SDK's calls included) and on a store that keeps
 * nothing (the reader, checks and pages alone, over a file streamed as S3 delivers it), its
 * memory peaks at two file sizes, and the export consumer's CPU per entry, each in a fresh Node
 * process and projected to the functions' deployed memory; then config/resolve's latency on the
 * twin without an import and during one.
 */
export const importsBench = async ({
  pipelineRows,
  storeRows,
  storeFormats,
  resolve,
}: ImportsOptions): Promise<Section[]> => {
  const [small, large] = pipelineRows;
  const pipelines: PipelineFigures[] = [];
  for (const [format, rows] of [
    ['jsonl', small],
    ['jsonl', large],
    ['csv', small],
  ] as const) {
    pipelines.push(await runChild<PipelineFigures>(CHILD, ['pipeline', format, String(rows)]));
  }
  const stored: DynamoFigures[] = [];
  const store = await startEmbeddedDynamo();
  try {
    for (const format of storeFormats) {
      stored.push(await runChild<DynamoFigures>(CHILD, ['dynamo', format, String(storeRows), store.endpoint]));
    }
  } finally {
    await store.close();
  }

  const resolved =
    resolve &&
    (await runChild<ResolveDuringImport>(RESOLVE_CHILD, [
      String(resolve.requests),
      String(resolve.connections),
      String(resolve.rate),
      String(resolve.rows),
      String(resolve.writesPerSecond),
    ]));

  const s = section('imports', 'Bulk import and export');
  s.tables.push({
    title: `Imports, each in a fresh Node process; CPU projected to the import consumer's ${IMPORT_MEMORY_MB} MB`,
    columns: ['import', 'rows', 'applied', 'time', 'CPU', 'CPU/row', 'projected rows/s', 'calls', 'writes/row'],
    rows: [
      ...pipelines.map((p) => importRow(`${p.format}, no store`, p.import)),
      ...stored.map((d) =>
        importRow(`${d.format}, DynamoDB Local`, d.import, [
          Object.entries(d.import.summary?.byOperation ?? {})
            .map(([op, n]) => `${op} ${fmtNum(n)}`)
            .join(', '),
          ((d.import.summary?.itemsWritten ?? 0) / Math.max(1, d.import.rows)).toFixed(3),
        ]),
      ),
    ],
  });
  s.tables.push({
    title:
      'The importer\'s memory (the "no store" jsonl imports): peaks sampled at each 64 KiB chunk of the file and every 20 ms',
    columns: ['rows', 'peak RSS', 'RSS at start', 'peak heap used', 'peak heap held', 'peak outside the heap'],
    rows: pipelines
      .filter((p) => p.format === 'jsonl')
      .map((p) => [
        fmtNum(p.import.rows),
        fmtBytes(p.peakRss),
        fmtBytes(p.baseRss),
        fmtBytes(p.peakHeap),
        fmtBytes(p.peakHeapTotal),
        fmtBytes(p.peakExternal),
      ]),
  });
  const largest = pipelines.filter((p) => p.format === 'jsonl').at(-1) as PipelineFigures;
  s.tables.push({
    title: `Peak RSS in each tenth of the ${fmtNum(largest.import.rows)}-row import (a plateau, or growth with the rows read)`,
    columns: largest.peakRssByTenth.map((_, i) => `${(i + 1) * 10}%`),
    rows: [largest.peakRssByTenth.map((bytes) => (bytes > 0 ? fmtBytes(bytes) : '-'))],
  });
  const jsonlStored = stored.find((d) => d.format === 'jsonl');
  if (jsonlStored) {
    const own = perItem(largest.import);
    const calls = perItem(jsonlStored.import) - own;
    s.tables.push({
      title:
        "Where a jsonl row's CPU goes (the store's share: the DynamoDB Local import less the largest no-store one)",
      columns: [
        'reading, checks, pages',
        "the store's calls (SDK)",
        'DynamoDB calls/row',
        'a million rows (projected)',
      ],
      rows: [
        [
          us(own),
          us(calls),
          ((jsonlStored.import.summary?.calls ?? 0) / Math.max(1, jsonlStored.import.rows)).toFixed(3),
          `${fmtSeconds(projectedSeconds(own * GOAL_ROWS, IMPORT_MEMORY_MB))} + ${fmtSeconds(projectedSeconds(calls * GOAL_ROWS, IMPORT_MEMORY_MB))}`,
        ],
      ],
    });
  }
  const exported = stored.find((d) => d.export)?.export;
  if (exported) {
    s.tables.push({
      title: `The export of the jsonl import's entries from DynamoDB Local; CPU projected to the export consumer's ${EXPORT_MEMORY_MB} MB`,
      columns: ['entries', 'time', 'CPU', 'CPU/entry', 'projected entries/s', 'calls', 'read calls/entry'],
      rows: [
        [
          fmtNum(exported.rows),
          fmtMs(exported.ms),
          fmtSeconds(exported.cpuSeconds),
          us(perItem(exported)),
          fmtNum(1 / projectedSeconds(perItem(exported), EXPORT_MEMORY_MB)),
          Object.entries(exported.summary?.byOperation ?? {})
            .map(([op, n]) => `${op} ${fmtNum(n)}`)
            .join(', '),
          ((exported.summary?.reads ?? 0) / Math.max(1, exported.rows)).toFixed(3),
        ],
      ],
    });
  }

  // A million rows: the consumer's CPU (the slower format's, with the SDK's calls) and the time
  // its items written take at the default bound. A page sleeps only what its writes leave of
  // their time at the bound (worker.ts), so a page takes the longer of the two.
  const slowest = stored.reduce((a, b) => (perItem(b.import) > perItem(a.import) ? b : a));
  const cpuMillion = projectedSeconds(perItem(slowest.import) * GOAL_ROWS, IMPORT_MEMORY_MB);
  const writesPerRow = (slowest.import.summary?.itemsWritten ?? 0) / Math.max(1, slowest.import.rows);
  const rateMillion = (GOAL_ROWS * writesPerRow) / DEFAULT_IMPORT_WRITES_PER_SECOND;
  const million = Math.max(cpuMillion, rateMillion);
  s.goals.push(
    goal(
      `${fmtNum(GOAL_ROWS)} import rows at ${IMPORT_MEMORY_MB} MB and ${fmtNum(DEFAULT_IMPORT_WRITES_PER_SECOND)} writes/s`,
      `${fmtSeconds(million)} (the longer of CPU ${fmtSeconds(cpuMillion)} and the items written at the bound ${fmtSeconds(rateMillion)})`,
      `<= ${GOAL_SECONDS} s`,
      million <= GOAL_SECONDS,
    ),
  );
  if (exported) {
    const exportMillion = projectedSeconds(perItem(exported) * GOAL_ROWS, EXPORT_MEMORY_MB);
    s.goals.push(
      goal(
        `${fmtNum(GOAL_ROWS)} exported entries at ${EXPORT_MEMORY_MB} MB (CPU)`,
        fmtSeconds(exportMillion),
        `<= ${GOAL_SECONDS} s`,
        exportMillion <= GOAL_SECONDS,
      ),
    );
  }
  const [first, second] = pipelines.filter((p) => p.format === 'jsonl') as [PipelineFigures, PipelineFigures];
  const rssRatio = second.peakRss / first.peakRss;
  s.goals.push(
    goal(
      `the importer's peak RSS, ${fmtNum(second.import.rows)} vs ${fmtNum(first.import.rows)} rows`,
      `${fmtRatio(rssRatio)} (${fmtBytes(second.peakRss)} vs ${fmtBytes(first.peakRss)}; heap used ${fmtRatio(second.peakHeap / first.peakHeap)})`,
      `<= ${fmtRatio(MEMORY_GOAL_RATIO)}`,
      rssRatio <= MEMORY_GOAL_RATIO,
    ),
  );
  if (resolve && resolved) resolveFigures(s, resolve, resolved);
  s.notes.push(
    `Projected: CPU time measured here x ${FULL_VCPU_MB}/${IMPORT_MEMORY_MB} (Lambda gives 1 vCPU at ${FULL_VCPU_MB} MB; the consumers' memory from service/functions.ts). The import's own write bound is lifted while it is measured; the ${fmtNum(GOAL_ROWS * writesPerRow)} items a million rows write (PartiQL statements and single writes alike, the job record's updates included) take ${fmtSeconds(rateMillion)} at the default bound (shared/platform/environment.ts, ${fmtNum(DEFAULT_IMPORT_WRITES_PER_SECOND)}/s), whatever the CPU; a page takes the longer of its CPU and its writes' time at the bound. A deployment that raises the bound shortens it; one that lowers it below ${fmtNum(Math.ceil((GOAL_ROWS * writesPerRow) / GOAL_SECONDS))}/s cannot meet the goal.`,
    'Not counted: the round trips to DynamoDB and S3 on AWS (an import page sends its batches of 25 statements 4 at a time; the export reads 100 keys, then their entries, one call after the other), TLS (DynamoDB Local is plain HTTP on loopback), and S3 itself (the file is streamed from memory, the export written to memory). The rows: a user each, half at the organization level and half in one of 5 documents, two channels set, no consent (a row with one stores its text once per page).',
    "Memory: the no-store imports stream a generated file in 64 KiB chunks (never held whole), each in a turn of the event loop of its own as from S3's socket. RSS is what Lambda's memory limit counts. The goal compares the two runs' peaks; the tenths of the larger run show whether RSS grows with the rows read or settles once V8's heap has grown to the allocation rate of a long run.",
    resolved
      ? "config/resolve during an import: a steady load below what the twin answers, as live traffic is; the import consumer's work runs in a process of its own, as it is a function of its own on AWS, and writes into the twin's tables. What they still share here and not on AWS: this machine's cores, and DynamoDB Local, which answers every request of every table through one SQLite connection (on AWS reads and writes have capacities of their own, and an import's writes take none of resolve's reads). The comparison is the same run's window without an import, just before."
      : 'config/resolve during an import: not measured in this run (a quick one).',
  );
  s.data = { pipelines, stored, resolved };
  return [s];
};

/** config/resolve's windows on the twin, and the goal: its p99 during an import against its p99 without. */
const resolveFigures = (s: Section, resolve: ResolveOptions, resolved: ResolveDuringImport) => {
  s.tables.push({
    title: `config/resolve of 100 readers on the twin, ${fmtNum(resolve.requests)} requests a window at ${fmtNum(resolve.rate)} a second over ${resolve.connections} connections; beside it, the import consumer's work in a process of its own into the twin's tables, bound to ${fmtNum(resolve.writesPerSecond)} writes a second (rows read: ${fmtNum(resolved.importRows.atStart)} as its window started, ${fmtNum(resolved.importRows.atEnd)} as it ended, then ${resolved.importRows.status})`,
    columns: ['window', 'requests', 'errors', 'p50', 'p99'],
    rows: resolved.windows.map((w) => [w.name, fmtNum(w.requests), fmtNum(w.errors), fmtMs(w.p50), fmtMs(w.p99)]),
  });
  const [without, during] = resolved.windows as [Window, Window];
  const resolveRatio = during.p99 / without.p99;
  const ranThroughout = resolved.importRows.status === 'in_progress';
  s.goals.push(
    goal(
      "config/resolve's p99 during an import vs without, on the twin",
      `${fmtRatio(resolveRatio)} (${fmtMs(during.p99)} vs ${fmtMs(without.p99)})${ranThroughout ? '' : '; the import ended within its window'}`,
      `<= ${fmtRatio(RESOLVE_GOAL_RATIO)}`,
      resolveRatio <= RESOLVE_GOAL_RATIO && ranThroughout,
    ),
  );
};
