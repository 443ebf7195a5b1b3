import './quiet.js';
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTables } from '#local/dynamo.js';
import { DynamoConsentTextStore } from '#shared/consent/text-store.js';
import { DynamoExportEntryStore } from '#shared/exports/entries.js';
import { exportJob } from '#shared/exports/kind.js';
import type { ExportRecord } from '#shared/exports/model.js';
import { runExport } from '#shared/exports/worker.js';
import { importJob } from '#shared/imports/kind.js';
import type { ImportRecord } from '#shared/imports/model.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { startJob } from '#shared/jobs/start.js';
import { createDocumentClient, MAX_ATTEMPTS } from '#shared/platform/aws-clients.js';
import { DynamoEntryChanges } from '#shared/preferences/dynamo-entry-changes.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { MemoryFiles, MemoryJobRepository, MemoryQueue, MemoryTexts, policySource } from '../support/import-fakes.js';
import { CallCounter, type CallSummary } from './counting.js';
import { BENCH_ORG, type BenchFormat, nullEntries, runBenchImport, StreamFiles } from './import-files.js';
import { cpuSecondsSince } from './lambda-cpu.js';
import { progress } from './progress.js';

/**
 * One measurement of the imports section in a process of its own (forked by imports.ts), so
 * that its CPU time and memory peaks are its own; the figures go back over IPC.
 *
 * - `pipeline <format> <rows>`: the import step over a generated file streamed as S3 delivers
 *   it, into a store that keeps nothing: the reader, the checks, the pages and the plan, with
 *   the process's peak RSS and heap sampled throughout.
 * - `dynamo <format> <rows> <endpoint>`: the same import into the real stores on the DynamoDB
 *   Local at `endpoint` (another process, fresh tables), then (jsonl) an export of what it wrote,
 *   each with its CPU time and its calls.
 * - `beside <format> <rows>`: the import consumer's work beside a running twin (imports-resolve-child.ts),
 *   in a process of its own as the consumer is a function of its own on AWS: into the twin's
 *   tables (BENCH_TWIN: its DynamoDB endpoint, credential and table names, and the write
 *   bound). It sends `{importId}` once the import exists and `{writing: true}` at
 *   its first write, then works until the import ends or the parent stops it.
 */

/** The import's own bound is lifted: the bench measures its work, the bound is reported apart. */
const UNBOUNDED_WRITES_PER_SECOND = 1_000_000;

export interface Measured {
  rows: number;
  ms: number;
  cpuSeconds: number;
  summary?: CallSummary;
}

export interface PipelineFigures {
  format: BenchFormat;
  import: Measured & { applied: number };
  peakRss: number;
  /** The peak RSS in each tenth of the rows: a plateau, or growth with the rows read. */
  peakRssByTenth: number[];
  peakHeap: number;
  /** The heap V8 holds (used or not): what RSS follows. */
  peakHeapTotal: number;
  /** Memory outside the JS heap (Buffers): the file's chunks and lines. */
  peakExternal: number;
  baseRss: number;
  baseHeap: number;
}

export interface DynamoFigures {
  format: BenchFormat;
  import: Measured & { applied: number };
  export?: Measured;
}

/**
 * Peaks of RSS and heap, and of RSS in each tenth of the run: sampled at each chunk of the file
 * (`sample`, with the share of rows read so far) and every 20 ms besides.
 */
const samplePeaks = () => {
  const peaks = { rss: 0, heap: 0, heapTotal: 0, external: 0, rssByTenth: Array.from({ length: 10 }, () => 0) };
  let done = 0;
  const sample = (share = done) => {
    done = share;
    const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
    const tenth = Math.min(9, Math.floor(done * 10));
    peaks.rssByTenth[tenth] = Math.max(peaks.rssByTenth[tenth] as number, rss);
    peaks.rss = Math.max(peaks.rss, rss);
    peaks.heap = Math.max(peaks.heap, heapUsed);
    peaks.heapTotal = Math.max(peaks.heapTotal, heapTotal);
    peaks.external = Math.max(peaks.external, external);
  };
  sample();
  const timer = setInterval(sample, 20);
  return {
    sample,
    stop() {
      clearInterval(timer);
      sample();
      return peaks;
    },
  };
};

const measured = async <T>(label: string, status: () => string, work: () => Promise<T>) => {
  const shown = progress(label, status);
  const cpu = process.cpuUsage();
  const started = performance.now();
  try {
    const result = await work();
    return { result, ms: performance.now() - started, cpuSeconds: cpuSecondsSince(cpu) };
  } finally {
    shown.stop();
  }
};

const pipeline = async (format: BenchFormat, rows: number): Promise<PipelineFigures> => {
  const repository = new MemoryJobRepository<ImportRecord>(importJob);
  global.gc?.();
  const base = process.memoryUsage();
  const peaks = samplePeaks();
  const deps = {
    repository,
    files: new StreamFiles(rows, format, (read) => peaks.sample(read / rows)),
    entries: nullEntries,
    texts: new MemoryTexts(),
    policies: policySource({}),
    writesPerSecond: UNBOUNDED_WRITES_PER_SECOND,
  };
  const current = () => [...repository.records.values()][0]?.rowsRead ?? 0;
  const { result, ms, cpuSeconds } = await measured(
    `import of ${rows.toLocaleString('en-US')} ${format} rows (no store)`,
    () => `${current().toLocaleString('en-US')} rows`,
    () => runBenchImport(deps, format),
  );
  const { rss, heap, heapTotal, external, rssByTenth } = peaks.stop();
  return {
    format,
    import: { rows: result.rowsRead, applied: result.rowsApplied, ms, cpuSeconds },
    peakRss: rss,
    peakHeap: heap,
    peakHeapTotal: heapTotal,
    peakRssByTenth: rssByTenth,
    peakExternal: external,
    baseRss: base.rss,
    baseHeap: base.heapUsed,
  };
};

/** An import's deps on the real stores in `tables`, over a generated file of `rows` rows. */
const storeDeps = (
  doc: DynamoDBDocumentClient,
  tables: { config: string; migrations: string },
  rows: number,
  format: BenchFormat,
  writesPerSecond: number,
) => {
  const preferences = new DynamoPreferenceStore(doc, tables.config);
  const changes = new DynamoEntryChanges(doc, tables.config);
  return {
    repository: new DynamoJobRepository(importJob, doc, tables.migrations),
    files: new StreamFiles(rows, format),
    entries: {
      getEntries: preferences.getEntries.bind(preferences),
      writeChanges: changes.writeChanges.bind(changes),
    },
    texts: new DynamoConsentTextStore(doc, tables.config),
    policies: policySource({}),
    writesPerSecond,
  };
};

const dynamo = async (format: BenchFormat, rows: number, endpoint: string): Promise<DynamoFigures> => {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: MAX_ATTEMPTS,
  });
  // One set of tables for every run on this DynamoDB Local, each run in an organization of its
  // own: DynamoDB Local's PartiQL statements slow down with each table that has a stream.
  await ensureTables(client, (table) => `${table.localName}-bench`);
  const tables = { config: 'config-bench', migrations: 'migrations-bench' };
  const organizationId = `${BENCH_ORG}-${randomUUID().slice(0, 8)}`;
  // The consumer's client as deployed; counted without asking for capacity, which would add to its CPU.
  const doc = createDocumentClient(client);
  const counter = new CallCounter(undefined, { capacity: false }).attachDynamo(doc);
  try {
    const deps = storeDeps(doc, tables, rows, format, UNBOUNDED_WRITES_PER_SECOND);
    counter.records = [];
    const imported = await measured(
      `import of ${rows.toLocaleString('en-US')} ${format} rows into DynamoDB Local`,
      () => `${counter.summary().writes.toLocaleString('en-US')} writes`,
      () => runBenchImport(deps, format, organizationId),
    );
    const figures: DynamoFigures = {
      format,
      import: {
        rows: imported.result.rowsRead,
        applied: imported.result.rowsApplied,
        ms: imported.ms,
        cpuSeconds: imported.cpuSeconds,
        summary: counter.summary(),
      },
    };
    if (format !== 'jsonl') return figures;
    const exports = new DynamoJobRepository(exportJob, doc, tables.migrations);
    const queue = new MemoryQueue();
    const { exportId } = await startJob(
      exportJob,
      { repository: exports, queue },
      { organizationId, format },
      'ak_bench',
    );
    const exportDeps = {
      entries: new DynamoExportEntryStore(doc, tables.config),
      files: new MemoryFiles(),
      repository: exports,
      queue,
    };
    counter.records = [];
    const exported = await measured(
      `export of ${rows.toLocaleString('en-US')} entries from DynamoDB Local`,
      () => `${counter.summary().reads.toLocaleString('en-US')} read calls`,
      async () => {
        for (let delivery = 1; delivery <= 20; delivery += 1) {
          const outcome = await runExport(exportDeps, exportId, { receiveCount: 1, maxReceiveCount: 5 });
          if (outcome !== 'continued') break;
        }
        return (await exports.get(exportId)) as ExportRecord;
      },
    );
    if (exported.result.status !== 'completed') throw new Error(`the bench export ended ${exported.result.status}`);
    figures.export = {
      rows: exported.result.rows,
      ms: exported.ms,
      cpuSeconds: exported.cpuSeconds,
      summary: counter.summary(),
    };
    return figures;
  } finally {
    client.destroy();
  }
};

/** What `beside` is told of the twin, as JSON in BENCH_TWIN. */
export interface TwinTables {
  endpoint: string;
  region: string;
  credential: { accessKeyId: string; secretAccessKey: string };
  tables: { config: string; migrations: string };
  /** The import's bound (the deployed default unless a run asks for another). */
  writesPerSecond: number;
}

const beside = async (format: BenchFormat, rows: number): Promise<void> => {
  const twin = JSON.parse(process.env.BENCH_TWIN ?? '') as TwinTables;
  const client = new DynamoDBClient({
    endpoint: twin.endpoint,
    region: twin.region,
    credentials: twin.credential,
    maxAttempts: MAX_ATTEMPTS,
  });
  const deps = storeDeps(createDocumentClient(client), twin.tables, rows, format, twin.writesPerSecond);
  const { writeChanges } = deps.entries;
  let writing = false;
  deps.entries.writeChanges = (...args) => {
    if (!writing) {
      writing = true;
      process.send?.({ writing: true });
    }
    return writeChanges(...args);
  };
  await runBenchImport(deps, format, `${BENCH_ORG}-beside-${randomUUID().slice(0, 8)}`, (importId) =>
    process.send?.({ importId }),
  );
};

const [mode, formatArg, rowsArg, endpoint] = process.argv.slice(2);
const format = formatArg as BenchFormat;
const rows = Number(rowsArg);
if (
  !['jsonl', 'csv'].includes(format) ||
  !Number.isInteger(rows) ||
  rows <= 0 ||
  !['pipeline', 'dynamo', 'beside'].includes(mode ?? '') ||
  (mode === 'dynamo' && !endpoint)
) {
  throw new Error(
    `usage: imports-child.ts pipeline|dynamo|beside jsonl|csv <rows> [<DynamoDB endpoint>], got ${process.argv.slice(2).join(' ')}`,
  );
}
if (mode === 'beside') {
  await beside(format, rows);
  process.exit(0);
}
const figures = mode === 'pipeline' ? await pipeline(format, rows) : await dynamo(format, rows, endpoint as string);
process.send?.(figures, () => process.exit(0));
