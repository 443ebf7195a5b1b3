import { gzipSync } from 'node:zlib';
import { expect } from '@jest/globals';
import { createImport } from '#shared/imports/create.js';
import { importJob } from '#shared/imports/kind.js';
import type { ImportRecord } from '#shared/imports/model.js';
import type { ImportFormat } from '#shared/imports/read.js';
import { importOfUpload } from '#shared/imports/upload.js';
import { runImport } from '#shared/imports/worker.js';
import type { RunOutcome } from '#shared/jobs/delivery-policy.js';
import type { Policy } from '#shared/policy/model.js';
import type { StoredEntry } from '#shared/preferences/model.js';
import { entryId } from '#shared/preferences/store.js';
import {
  MemoryEntries,
  MemoryFiles,
  MemoryJobRepository,
  MemoryQueue,
  MemoryTexts,
  policySource,
} from './import-fakes.js';

/*
 * An import run end to end over the in-memory stores (import-fakes.ts): created, its file
 * uploaded and noticed, then delivered until it ends, as the import queue's consumer would.
 */

export const ORG = 'org-1';
const CREATED = Date.parse('2026-06-01T00:00:00.000Z');
/** One clock for every import of the file: no two pages of two imports share a write time. */
let clock = CREATED;

export interface Options {
  format?: ImportFormat;
  dryRun?: boolean;
  gzip?: boolean;
  policy?: Policy;
  pageLines?: number;
  entries?: MemoryEntries;
  /** The deployment's bound on the import's writes (unbounded in effect unless given). */
  writesPerSecond?: number;
  /** Each delivery has too little time left for a second page: it continues in a new message. */
  onePagePerDelivery?: boolean;
}

/** An import created, its file uploaded and its upload noticed, over fresh stores (or `entries`). */
export const importOf = async (body: string | Buffer, options: Options = {}) => {
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
    writesPerSecond: options.writesPerSecond ?? 1_000_000,
    ...(options.pageLines === undefined ? {} : { pageLines: options.pageLines }),
    newRunId: () => `run-${++runs}`,
  };
  let deliveries = 0;
  /** One delivery of the import's message. */
  const deliver = (): Promise<RunOutcome> =>
    runImport(deps, importId, {
      receiveCount: ++deliveries,
      maxReceiveCount: 5,
      ...(options.onePagePerDelivery ? { remainingTimeMs: () => 0 } : {}),
    });
  /**
   * Deliveries until one ends the import, each failed one followed by the queue's retry, each
   * continued one by its new message (a new delivery, its count starting over).
   */
  const finish = async (): Promise<{ outcome: RunOutcome; crashes: number }> => {
    let crashes = 0;
    for (;;) {
      try {
        const outcome = await deliver();
        if (outcome !== 'continued') return { outcome, crashes };
        expect(queue.sent.at(-1)).toEqual({ id: importId, delaySeconds: undefined });
        deliveries = 0;
      } catch (error) {
        expect((error as Error).message).toBe('injected crash');
        crashes += 1;
        if (crashes > 3) throw error;
      }
    }
  };
  return { importId, repository, files, entries, texts, queue, record, finish };
};

export const counts = (record: ImportRecord) => ({
  status: record.status,
  rowsRead: record.rowsRead,
  rowsApplied: record.rowsApplied,
  rowsUnchanged: record.rowsUnchanged,
  rowsRejected: record.rowsRejected,
  rowsPartlyMapped: record.rowsPartlyMapped,
});
export const jsonl = (lines: readonly unknown[]) =>
  lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');
export const reportOf = (files: MemoryFiles, record: ImportRecord) =>
  (files.text(record.errorReportKey) ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

export const consent = { source: 'settings', capturedAt: '2026-05-20T00:00:00Z', text: 'Yes to news.' };

/** Entries where u3 holds email ALL (organization level, all categories), written long ago. */
export const seeded = () => {
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

export type ImportRun = Awaited<ReturnType<typeof importOf>>;
