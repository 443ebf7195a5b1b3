import { Readable } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import { createImport } from '#shared/imports/create.js';
import type { ImportRecord } from '#shared/imports/model.js';
import { importOfUpload } from '#shared/imports/upload.js';
import { type ImportWorkerDeps, runImport } from '#shared/imports/worker.js';
import type { JobRepository } from '#shared/jobs/repository.js';
import type { ChangeOutcome, EntryChange } from '#shared/preferences/entry-changes.js';
import type { ChannelConfig, EntryKey, StoredEntry } from '#shared/preferences/model.js';
import { MemoryFiles, MemoryQueue } from '../support/import-fakes.js';

/*
 * The bench's import files and one import run over them (imports-child.ts): rows generated on
 * the fly, read from a stream as S3 delivers a file, so a file of a million rows is never held.
 */

export type BenchFormat = 'jsonl' | 'csv';
export const BENCH_ORG = 'bench-org';
/** A stream's chunk, about what an S3 GetObject body delivers. */
const CHUNK_BYTES = 64 * 1024;

const SETTINGS = ['ALL', 'MINE', 'NONE'] as const;

/** Row `i`: a user of its own (so no page is cut short), half at the organization level, half in one of 5 documents. */
const rowOf = (i: number) => ({
  userId: `user-${String(i).padStart(7, '0')}`,
  ...(i % 2 === 1 ? { documentId: `doc-${i % 5}` } : {}),
  config: { inbox: SETTINGS[i % 3], email: SETTINGS[(i + 1) % 3] } as ChannelConfig,
});

const lineOf = (i: number, format: BenchFormat): string => {
  const row = rowOf(i);
  return format === 'jsonl'
    ? `${JSON.stringify(row)}\n`
    : `${row.userId},${row.documentId ?? ''},${row.config.inbox},${row.config.email}\r\n`;
};

/**
 * A file of `rows` rows as a stream of ~64 KiB chunks, generated as it is read; `onChunk` is told
 * the rows generated so far before each chunk goes out. Each chunk comes in a turn of the event
 * loop of its own, as S3's body does from its socket: a stream that never lets the loop turn runs
 * a whole import in microtasks, which no import over the network does, and V8's heap grows
 * further when the loop never turns.
 */
export const fileStream = (rows: number, format: BenchFormat, onChunk?: (rowsSoFar: number) => void): Readable =>
  Readable.from(
    (async function* () {
      let text = format === 'csv' ? 'userId,documentId,inbox,email\r\n' : '';
      for (let i = 0; i < rows; i += 1) {
        text += lineOf(i, format);
        if (text.length >= CHUNK_BYTES) {
          onChunk?.(i + 1);
          await setImmediate();
          yield Buffer.from(text);
          text = '';
        }
      }
      if (text.length > 0) yield Buffer.from(text);
    })(),
    { objectMode: false },
  );

/** The bucket with the import's file as a generated stream (the unit tests' MemoryFiles otherwise). */
export class StreamFiles extends MemoryFiles {
  constructor(
    private readonly rows: number,
    private readonly format: BenchFormat,
    private readonly onChunk?: (rowsSoFar: number) => void,
  ) {
    super();
  }
  override async read(): Promise<Readable> {
    return fileStream(this.rows, this.format, this.onChunk);
  }
}

/** An entries store that keeps nothing: every row applies, and what it costs is the importer's own work. */
export const nullEntries = {
  getEntries: async (_keys: readonly EntryKey[]): Promise<StoredEntry[]> => [],
  writeChanges: async (changes: readonly EntryChange[]): Promise<ChangeOutcome[]> => changes.map(() => 'written'),
};

export type BenchImportDeps = Omit<ImportWorkerDeps, 'repository' | 'queue' | 'files'> & {
  repository: JobRepository<ImportRecord>;
  files: StreamFiles;
};

/**
 * One import of the deps' file: created, its upload noticed, then delivered (as the consumer
 * does, with no deadline in the bench: a long one runs in one delivery) until it ends.
 */
export const runBenchImport = async (
  deps: BenchImportDeps,
  format: BenchFormat,
  organizationId = BENCH_ORG,
  onCreated?: (importId: string) => void,
): Promise<ImportRecord> => {
  const queue = new MemoryQueue();
  const { importId } = await createImport(deps, { organizationId, format }, 'ak_bench');
  onCreated?.(importId);
  const created = (await deps.repository.get(importId)) as ImportRecord;
  await importOfUpload(deps.repository, created.fileKey, new Date());
  for (let delivery = 1; delivery <= 20; delivery += 1) {
    const outcome = await runImport({ ...deps, queue }, importId, { receiveCount: 1, maxReceiveCount: 5 });
    if (outcome !== 'continued') break;
  }
  const record = (await deps.repository.get(importId)) as ImportRecord;
  if (record.status !== 'completed') throw new Error(`the bench import ended ${record.status}: ${record.error}`);
  return record;
};
