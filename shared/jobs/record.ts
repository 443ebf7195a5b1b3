import { isActiveStatus, type JobStatus } from './status.js';

/**
 * What every job's record holds (docs/design.md, The job engine), beside the id, the fields and
 * the counters of its kind (kind.ts). Stored in the migrations table, keys aside.
 */
export interface JobRecord {
  organizationId: string;
  status: JobStatus;
  createdAt: string;
  updatedAt: string;
  /** The API key that started it; never shown in a status answer. Absent on records written before it was kept. */
  requestedBy?: string;
  /** Set once the first message is on the queue. */
  queuedAt?: string;
  /**
   * Until when (ISO-8601) the record may wait for its first message before it counts as
   * abandoned; absent: ABANDONED_AFTER_MS after its creation. An import waits for its upload.
   */
  queueBy?: string;
  /**
   * When a request last took on queuing the first message (start.ts): its creation, or a repeat
   * finishing a start that stopped before queuing. One taker at a time, so identical requests at
   * once queue one message.
   */
  queueClaimedAt?: string;
  startedAt?: string;
  completedAt?: string;
  error?: string;
  /** The delivery currently working on the job, and until when (epoch ms) it may. */
  leaseOwner?: string;
  leaseUntil?: number;
  /** Per consumer run: the last page whose progress it saved (decides what is counted already: progress.ts). */
  runs: Record<string, number>;
  /**
   * When the sweeper (sweep.ts) or an operator last re-queued the stalled job, and how often the
   * sweeper did since its last saved page (a saved page clears both).
   */
  sweptAt?: string;
  sweepResumes?: number;
}

/**
 * A pending record whose message was never confirmed queued, this old, belongs to a request
 * that died between recording and queuing (API Gateway gives up after 30 s): it is abandoned.
 */
export const ABANDONED_AFTER_MS = 2 * 60 * 1000;

export const isAbandoned = (record: JobRecord, now: Date): boolean =>
  record.status === 'pending' &&
  record.queuedAt === undefined &&
  now.getTime() >
    (record.queueBy === undefined ? Date.parse(record.createdAt) + ABANDONED_AFTER_MS : Date.parse(record.queueBy));

/** A lock is stale (free to take over) when its job is gone, over, or abandoned. */
export const isStaleHolder = (record: JobRecord | undefined, now: Date): boolean =>
  !record || !isActiveStatus(record.status) || isAbandoned(record, now);
