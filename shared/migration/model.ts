import { isActiveStatus, type JobStatus } from '#shared/jobs/status.js';
import type { MigrationStatusResult } from './routes/get-migration-status.js';

export { isActiveStatus } from '#shared/jobs/status.js';
export type MigrationStatus = JobStatus;

/** A migration record as stored in the migrations table (keys aside). */
export interface MigrationRecord {
  migrationId: string;
  organizationId: string;
  documentId: string;
  newDocumentId: string;
  status: MigrationStatus;
  /** Distinct users whose entry this migration wrote to the target. */
  moved: number;
  /** Source entry versions discarded because the target held a newer entry. */
  skipped: number;
  createdAt: string;
  updatedAt: string;
  /** Set once the first message is on the queue. */
  queuedAt?: string;
  startedAt?: string;
  completedAt?: string;
  error?: string;
  /** The delivery currently working on the migration, and until when (epoch ms) it may. */
  leaseOwner?: string;
  leaseUntil?: number;
  /** Per consumer run: the last page whose progress it saved (decides which target markers are counted). */
  runs: Record<string, number>;
  /** Skipped source entries (see skippedKey) of recent pages, so that a rerun does not count them again. */
  skippedCheckpoint: string[];
  /**
   * When the sweeper (sweep.ts) or an operator last re-queued the stalled migration, and how
   * often the sweeper did since its last saved page (a saved page clears both).
   */
  sweptAt?: string;
  sweepResumes?: number;
}

/** A per-document lock: the document is the source or the target of an active migration. */
export interface MigrationLock {
  organizationId: string;
  documentId: string;
  migrationId: string;
  role: 'source' | 'target';
  createdAt: string;
}

/** What the status route returns: its type is the route's result schema's. */
export type MigrationView = MigrationStatusResult;

export const NOT_FOUND_MESSAGE = 'Migration not found.';

/**
 * A pending record whose message was never confirmed queued, this old, belongs to a request
 * that died between recording and queuing (API Gateway gives up after 30 s): it is abandoned.
 */
export const ABANDONED_AFTER_MS = 2 * 60 * 1000;
export const ABANDONED_REASON = 'The migration could not be queued; start it again.';

export const isAbandoned = (record: MigrationRecord, now: Date): boolean =>
  record.status === 'pending' &&
  record.queuedAt === undefined &&
  now.getTime() - Date.parse(record.createdAt) > ABANDONED_AFTER_MS;

/** A lock is stale (free to take over) when its migration is gone, over, or abandoned. */
export const isStaleHolder = (record: MigrationRecord | undefined, now: Date): boolean =>
  !record || !isActiveStatus(record.status) || isAbandoned(record, now);

export const toView = (record: MigrationRecord, now: Date): MigrationView => {
  const abandoned = isAbandoned(record, now);
  return {
    migrationId: record.migrationId,
    organizationId: record.organizationId,
    documentId: record.documentId,
    newDocumentId: record.newDocumentId,
    status: abandoned ? 'failed' : record.status,
    moved: record.moved,
    skipped: record.skipped,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.completedAt ? { completedAt: record.completedAt } : {}),
    ...(abandoned ? { error: ABANDONED_REASON } : record.error ? { error: record.error } : {}),
  };
};
