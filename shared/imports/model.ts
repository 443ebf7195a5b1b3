import type * as z from 'zod/mini';
import type { JobRecord } from '#shared/jobs/record.js';
import type { ImportFormat } from './read.js';
import type { importStatusResult } from './routes/get-import-status.js';

/** A rejected line as the status answers it. */
export interface LineError {
  line: number;
  message: string;
}

/** An import record as stored (keys aside): a job record (shared/jobs/record.ts) and its own fields. */
export interface ImportRecord extends JobRecord {
  importId: string;
  format: ImportFormat;
  dryRun: boolean;
  compression?: 'gzip';
  /** Where the caller uploads the file, and where the rejected lines are reported (shared/files/keys.ts). */
  fileKey: string;
  errorReportKey: string;
  rowsRead: number;
  rowsApplied: number;
  rowsUnchanged: number;
  rowsRejected: number;
  /** Applied lines that also held what has no equivalent here (knock, novu), reported in the error report. */
  rowsPartlyMapped: number;
  /** The first MAX_LISTED_ERRORS rejected lines. */
  errors: LineError[];
  /**
   * Page fields: the lines handled so far, the write time of a page under way and the lines of
   * it that apply (judged before it writes), the report's parts, and why the import fails once
   * its failing page is saved (a run that dies before it marks the import failed leaves the next
   * run only that to do).
   */
  line: number;
  pendingStamp: string | null;
  pendingApplied: number[] | null;
  reportParts: number[];
  failure: string | null;
}

/** What the status route returns. */
export type ImportView = z.output<ReturnType<typeof importStatusResult>>;
