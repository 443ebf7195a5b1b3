import { beforeEach, describe, expect, test } from '@jest/globals';
import { DynamoExportEntryStore } from '#shared/exports/entries.js';
import { exportJob } from '#shared/exports/kind.js';
import type { ExportRecord } from '#shared/exports/model.js';
import type { ExportRequest } from '#shared/exports/routes/create-export.js';
import { type ExportWorkerDeps, runExport } from '#shared/exports/worker.js';
import type { FilePart } from '#shared/files/store.js';
import type { JobQueue } from '#shared/jobs/queue.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { startJob } from '#shared/jobs/start.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { useTestDynamo } from '../support/dynamo.js';
import { CrashError, type CrashPlan, later, Process, TEST_API_KEY } from './migration-fixtures.js';

// An export's runs against DynamoDB Local, with the files bucket in memory: every row once, in
// parts when the file is larger than one, and the same file and counts after a crash at any point.

const dynamo = useTestDynamo({ tables: 'own', freshTablesPerTest: true });
let store: DynamoPreferenceStore;
let repository: DynamoJobRepository<ExportRecord, ExportRequest>;
let entries: DynamoExportEntryStore;

/** The bucket in memory: whole files, and uploads in parts joined on completion (as S3 does). */
class MemoryFiles {
  readonly objects = new Map<string, string>();
  readonly uploads = new Map<string, Map<number, string>>();
  private next = 0;
  async put(key: string, body: Buffer) {
    this.objects.set(key, body.toString());
  }
  async startParts() {
    this.next += 1;
    const id = `upload-${this.next}`;
    this.uploads.set(id, new Map());
    return id;
  }
  async putPart(_key: string, uploadId: string, partNumber: number, body: Buffer): Promise<FilePart> {
    this.uploads.get(uploadId)?.set(partNumber, body.toString());
    return { partNumber, etag: `"${uploadId}-${partNumber}"` };
  }
  async completeParts(key: string, uploadId: string, parts: readonly FilePart[]) {
    const upload = this.uploads.get(uploadId);
    if (!upload) return; // completed already
    this.objects.set(key, parts.map((part) => upload.get(part.partNumber) ?? '').join(''));
    this.uploads.delete(uploadId);
  }
}

class MemoryQueue implements JobQueue {
  readonly sent: string[] = [];
  async send(id: string): Promise<void> {
    this.sent.push(id);
  }
}

let files: MemoryFiles;
let queue: MemoryQueue;

beforeEach(async () => {
  store = new DynamoPreferenceStore(dynamo.doc, dynamo.tables.config);
  repository = new DynamoJobRepository(exportJob, dynamo.doc, dynamo.tables.migrations);
  entries = new DynamoExportEntryStore(dynamo.doc, dynamo.tables.config);
  files = new MemoryFiles();
  queue = new MemoryQueue();
});

const ORG = 'acme';
const meta = { updatedAt: '2026-01-01T00:00:00.000Z', updatedBy: 'ak_1' };
const USERS = 40;

/** 40 users with a document entry; every fourth also at the organization level; another organization's too. */
const seed = async () => {
  const expected: string[] = [];
  for (let i = 0; i < USERS; i += 1) {
    const userId = `user-${String(i).padStart(3, '0')}`;
    await store.setChannels({ organizationId: ORG, userId, documentId: 'doc-1' }, { email: 'NONE' }, meta);
    expected.push(JSON.stringify({ userId, documentId: 'doc-1', config: { email: 'NONE' } }));
    if (i % 4 === 0) {
      await store.setChannels({ organizationId: ORG, userId, documentId: null }, { inbox: 'MINE' }, meta);
      expected.push(JSON.stringify({ userId, config: { inbox: 'MINE' } }));
    }
  }
  await store.setChannels({ organizationId: 'globex', userId: 'eve', documentId: null }, { slack: 'ALL' }, meta);
  return expected.sort();
};

const deps = (overrides: Partial<ExportWorkerDeps> = {}): ExportWorkerDeps => ({
  entries,
  files,
  repository,
  queue,
  readSize: 3,
  // A part every few rows: a file of many parts.
  partBytes: 300,
  ...overrides,
});

const start = (format: 'jsonl' | 'csv' = 'jsonl') =>
  startJob(exportJob, { repository, queue }, { organizationId: ORG, format }, TEST_API_KEY);

const fileOf = async (exportId: string) => {
  const record = (await repository.get(exportId)) as ExportRecord;
  return { record, lines: (files.objects.get(record.fileKey) ?? '').split('\n').filter(Boolean).sort() };
};

describe('an export', () => {
  test('writes every row of the organization once, in parts, and counts them', async () => {
    const expected = await seed();
    const { exportId } = await start();
    expect(await runExport(deps(), exportId, { receiveCount: 1, maxReceiveCount: 5 })).toBe('completed');
    const { record, lines } = await fileOf(exportId);
    expect(lines).toEqual(expected);
    expect(record).toMatchObject({ status: 'completed', rows: expected.length });
    expect(files.uploads.size).toBe(0);
  });

  test('a small file is written whole; csv starts with its header', async () => {
    await store.setChannels({ organizationId: ORG, userId: 'ann', documentId: null }, { email: 'ALL' }, meta);
    const { exportId } = await start('csv');
    await runExport(deps({ partBytes: 1_000_000 }), exportId, { receiveCount: 1, maxReceiveCount: 5 });
    const record = (await repository.get(exportId)) as ExportRecord;
    expect(files.objects.get(record.fileKey)).toBe('userId,documentId,category,inbox,email,slack\r\nann,,,,ALL,\r\n');
    expect(record.rows).toBe(1);
  });

  const crashes: CrashPlan[] = [
    { method: 'putPart', call: 1, after: false },
    { method: 'putPart', call: 3, after: true },
    { method: 'saveProgress', call: 2, after: false },
    { method: 'saveProgress', call: 4, after: true },
    { method: 'completeParts', call: 1, after: true },
    { method: 'getEntries', call: 5, after: false },
  ];
  test.each(crashes)(
    'a crash ($method #$call, after: $after) resumes with the same file and exact counts',
    async (plan) => {
      const expected = await seed();
      const { exportId } = await start();
      const crashing = new Process(plan);
      await expect(
        runExport(
          deps({
            repository: crashing.wrap(repository),
            files: crashing.wrap(files),
            entries: crashing.wrap(entries),
          }),
          exportId,
          { receiveCount: 1, maxReceiveCount: 5 },
        ),
      ).rejects.toThrow(CrashError);
      // The next delivery, once the crashed run's lease is over.
      expect(await runExport(deps({ now: later }), exportId, { receiveCount: 2, maxReceiveCount: 5 })).toBe(
        'completed',
      );
      const { record, lines } = await fileOf(exportId);
      expect(lines).toEqual(expected);
      expect(record).toMatchObject({ status: 'completed', rows: expected.length });
    },
  );
});
