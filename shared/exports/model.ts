import type * as z from 'zod/mini';
import type { FilePart } from '#shared/files/store.js';
import type { JobRecord } from '#shared/jobs/record.js';
import type { exportStatusResult } from './routes/get-export-status.js';
import type { ExportFormat } from './rows.js';

/** An export record as stored (keys aside): a job record (shared/jobs/record.ts) and its own fields. */
export interface ExportRecord extends JobRecord {
  exportId: string;
  format: ExportFormat;
  documentIds?: string[];
  /** Where the file is written (shared/files/keys.ts): a key no one can guess. */
  fileKey: string;
  /** Rows written to the file by saved pages. */
  rows: number;
  /** Page fields: where the next page reads (the user index's key), and the parts written so far. */
  cursor: Record<string, string> | null;
  uploadId: string | null;
  parts: FilePart[];
  /** The last rows are written: the file is complete once its parts are joined. */
  written: boolean;
}

/** What the status route returns. */
export type ExportView = z.output<ReturnType<typeof exportStatusResult>>;
