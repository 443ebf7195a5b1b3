import type { FilePart, FileStore } from '#shared/files/store.js';
import type { Delivery, RunOutcome } from '#shared/jobs/delivery-policy.js';
import type { RunDeps } from '#shared/jobs/pages.js';
import { runJob } from '#shared/jobs/run.js';
import type { JobStep, PageResult } from '#shared/jobs/step.js';
import type { ExportEntryStore } from './entries.js';
import { exportJob } from './kind.js';
import type { ExportRecord } from './model.js';
import { CSV_HEADER, formatRow, rowsOf } from './rows.js';

/** Entry keys per read of the user index; their entries are read in BatchGetItem calls of 100. */
export const EXPORT_READ_SIZE = 100;
/** S3's smallest part but the last (5 MiB): a page writes one part, so memory holds one part at a time. */
export const PART_BYTES = 5 * 1024 * 1024;

const CONTENT_TYPES = { jsonl: 'application/x-ndjson', csv: 'text/csv; charset=utf-8' } as const;

export interface ExportWorkerDeps extends RunDeps<ExportRecord> {
  entries: Pick<ExportEntryStore, 'listOrganizationEntries' | 'getEntries'>;
  files: Pick<FileStore, 'put' | 'startParts' | 'putPart' | 'completeParts'>;
  readSize?: number;
  partBytes?: number;
}

/**
 * An export's pages under the engine's lease (docs/design.md, Exports): each page reads the
 * organization's entries from the saved cursor until it holds a part's worth of rows (or the
 * entries end), writes that part, and saves the cursor, the part and its rows together: a run
 * that dies before the save leaves them unsaved, and the next run reads from the saved cursor
 * again and writes the same part number over, so each row is in the file and counted once. A
 * file that fits in one part is written whole; a larger one is joined from its parts at the end.
 */
export const exportStep: JobStep<ExportRecord, ExportWorkerDeps> = (deps, { record }) => {
  const { entries, files, readSize = EXPORT_READ_SIZE, partBytes = PART_BYTES } = deps;
  const { organizationId, documentIds, format, fileKey } = record;
  const contentType = CONTENT_TYPES[format];
  let cursor = record.cursor;
  let uploadId = record.uploadId;
  let parts: FilePart[] = record.parts;
  let written = record.written;
  const atStart = cursor === null && parts.length === 0;

  return async (): Promise<PageResult> => {
    if (written) {
      if (uploadId) await files.completeParts(fileKey, uploadId, parts);
      return { outcome: 'done' };
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    let rows = 0;
    if (atStart && parts.length === 0 && format === 'csv') {
      chunks.push(Buffer.from(CSV_HEADER));
      bytes += chunks[0]?.length ?? 0;
    }
    let next = cursor;
    let ended = false;
    while (bytes < partBytes) {
      const page = await entries.listOrganizationEntries(organizationId, documentIds, readSize, next ?? undefined);
      for (const entry of page.keys.length > 0 ? await entries.getEntries(page.keys) : []) {
        for (const row of rowsOf(entry)) {
          const line = formatRow(row, format);
          if (line === undefined) continue;
          const chunk = Buffer.from(line);
          chunks.push(chunk);
          bytes += chunk.length;
          rows += 1;
        }
      }
      next = page.lastKey ?? null;
      if (!page.lastKey) {
        ended = true;
        break;
      }
    }
    const body = Buffer.concat(chunks);
    if (ended && !uploadId) {
      await files.put(fileKey, body, contentType);
    } else {
      uploadId ??= await files.startParts(fileKey, contentType);
      parts = [...parts, await files.putPart(fileKey, uploadId, parts.length + 1, body)];
    }
    cursor = next;
    written = ended;
    return { outcome: 'page', counts: { rows }, fields: { cursor, uploadId, parts, written } };
  };
};

/** Performs (part of) one export for one queue delivery: the engine's run with the export step. */
export const runExport = (deps: ExportWorkerDeps, exportId: string, delivery: Delivery): Promise<RunOutcome> =>
  runJob(exportJob, exportStep, deps, exportId, delivery);
