import type * as z from 'zod/mini';
import type { JobRecord } from '#shared/jobs/record.js';
import type { JobStatus } from '#shared/jobs/status.js';
import type { migrationStatusResult } from './routes/get-migration-status.js';

export type MigrationStatus = JobStatus;

/** A migration record as stored in the migrations table (keys aside): a job record (shared/jobs/record.ts) and its own fields. */
export interface MigrationRecord extends JobRecord {
  migrationId: string;
  documentId: string;
  newDocumentId: string;
  /** Distinct users whose entry this migration wrote to the target. */
  moved: number;
  /** Source entry versions discarded because the target held a newer entry. */
  skipped: number;
  /** Skipped source entries (see skippedKey) of recent pages, so that a rerun does not count them again. */
  skippedCheckpoint: string[];
}

/** What the status route returns: its type is the route's result schema's. */
export type MigrationView = z.output<ReturnType<typeof migrationStatusResult>>;
