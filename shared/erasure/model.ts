import { isActiveStatus, type JobStatus } from '#shared/jobs/status.js';
import type { ErasureStatusResult } from './routes/get-erasure-status.js';

export type ErasureStatus = JobStatus;
export const isActiveErasure = isActiveStatus;

/** An erasure record as stored (keys aside). */
export interface ErasureRecord {
  erasureId: string;
  organizationId: string;
  userId: string;
  status: ErasureStatus;
  /** Stored entries of the user (with at least one channel) this erasure deleted. */
  erased: number;
  createdAt: string;
  updatedAt: string;
  queuedAt?: string;
  completedAt?: string;
  error?: string;
  /** The delivery working on it, and until when (epoch ms). */
  leaseOwner?: string;
  leaseUntil?: number;
  /** Per run, the last page whose count was saved (decides which stamped entries are counted). */
  runs: Record<string, number>;
  /** TTL (epoch seconds): a finished record expires this long after it finished. */
  expiresAt?: number;
}

/** What the status route returns. */
export type ErasureView = ErasureStatusResult;

export const ERASURE_NOT_FOUND_MESSAGE = 'Erasure not found.';

/** The migrations table's TTL attribute (epoch seconds): set on a finished erasure's record only. */
export const ERASURE_TTL_ATTRIBUTE = 'expiresAt';

/** A finished erasure's record is kept this long, then DynamoDB deletes it. */
export const ERASURE_RECORD_LIFETIME_SECONDS = 30 * 24 * 60 * 60;

export const erasureExpiry = (finishedAt: string): number =>
  Math.floor(Date.parse(finishedAt) / 1000) + ERASURE_RECORD_LIFETIME_SECONDS;

/** As for migrations: a pending record never confirmed queued, this old, belongs to a request that died. */
export const ABANDONED_AFTER_MS = 2 * 60 * 1000;

export const isAbandonedErasure = (record: ErasureRecord, now: Date): boolean =>
  record.status === 'pending' &&
  record.queuedAt === undefined &&
  now.getTime() - Date.parse(record.createdAt) > ABANDONED_AFTER_MS;

export const toErasureView = (record: ErasureRecord, now: Date): ErasureView => ({
  erasureId: record.erasureId,
  organizationId: record.organizationId,
  userId: record.userId,
  status: isAbandonedErasure(record, now) ? 'failed' : record.status,
  erased: record.erased,
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
  ...(record.completedAt ? { completedAt: record.completedAt } : {}),
});
