import type * as z from 'zod/mini';
import type { JobRecord } from '#shared/jobs/record.js';
import type { JobStatus } from '#shared/jobs/status.js';
import type { erasureStatusResult } from './status-schema.js';

export type ErasureStatus = JobStatus;

/** An erasure record as stored (keys aside): a job record (shared/jobs/record.ts) and its own fields. */
export interface ErasureRecord extends JobRecord {
  erasureId: string;
  userId: string;
  /** Stored entries of the user (with at least one channel) this erasure deleted. */
  erased: number;
  /** TTL (epoch seconds): a finished record expires this long after it finished. */
  expiresAt?: number;
}

/** What the status route returns. */
export type ErasureView = z.output<ReturnType<typeof erasureStatusResult>>;

/** The migrations table's TTL attribute (epoch seconds): set on a finished erasure's record only. */
export const ERASURE_TTL_ATTRIBUTE = 'expiresAt';

/** A finished erasure's record is kept this long, then DynamoDB deletes it. */
export const ERASURE_RECORD_LIFETIME_SECONDS = 30 * 24 * 60 * 60;

export const erasureExpiry = (finishedAt: string): number =>
  Math.floor(Date.parse(finishedAt) / 1000) + ERASURE_RECORD_LIFETIME_SECONDS;
