import { isAbandoned, type JobRecord } from './record.js';
import { isActiveStatus } from './status.js';
import { abandonedReason, stalledReason, type Worded } from './wording.js';

/*
 * Whether an active job is stuck, and what the sweeper (sweep.ts) does about it. Pure: the
 * sweeper and the operator tool do the I/O these decisions ask for.
 *
 * A job makes progress in bursts: every lease taken and every page saved moves its `updatedAt`.
 * The quiet gaps of a healthy one are bounded: a failed delivery comes back after the queue's
 * visibility timeout (6 minutes), a delayed message after at most SQS's 15 minutes. One that has
 * been quiet far longer than that, with no live lease, has lost its message (a message deleted
 * by hand, a purged dead-letter queue, a last attempt killed before its watchdog was queued):
 * nothing would ever run it again, and its locks would hold its subjects.
 */

/** Quiet for this long without a live lease: stuck. Longer than the visibility timeout plus SQS's delay cap. */
export const DEFAULT_STALL_LIMIT_MS = 30 * 60_000;

/** Re-queues without a saved page in between before the sweeper gives up and fails the job. */
export const MAX_SWEEP_RESUMES = 3;

export type StuckVerdict =
  /** Nothing to do: finished, leased, recently active, or re-queued less than a stall limit ago. */
  | { action: 'leave'; why: 'finished' | 'leased' | 'recent' | 'resumed' }
  /** Queue a message for it again (the consumer picks up where it stopped). */
  | { action: 'resume' }
  /**
   * Mark it failed and free its subjects: `unqueued` only if it is still pending and was never
   * queued, `stalled` only if it is still as read and nobody holds a live lease.
   */
  | { action: 'fail'; guard: 'unqueued' | 'stalled'; reason: string };

/** What the sweeper does with `record`, a job of `kind`, at `now`. */
export const judgeJob = (
  kind: Worded,
  record: JobRecord,
  now: Date,
  stallLimitMs = DEFAULT_STALL_LIMIT_MS,
): StuckVerdict => {
  const nowMs = now.getTime();
  if (!isActiveStatus(record.status)) return { action: 'leave', why: 'finished' };
  if (record.leaseUntil !== undefined && record.leaseUntil > nowMs) return { action: 'leave', why: 'leased' };
  const quietMs = nowMs - Date.parse(record.updatedAt);
  if (quietMs < stallLimitMs) return { action: 'leave', why: 'recent' };
  // Its request died between recording and queuing: no message was ever sent, and a repeat of
  // the request may already have taken its locks over (start.ts). Resuming it would be wrong.
  if (record.status === 'pending' && record.queuedAt === undefined) {
    return isAbandoned(record, now)
      ? { action: 'fail', guard: 'unqueued', reason: abandonedReason(kind) }
      : { action: 'leave', why: 'recent' };
  }
  // The last re-queue has had a whole stall limit to show progress (a lease taken moves updatedAt).
  if (record.sweptAt !== undefined && nowMs - Date.parse(record.sweptAt) < stallLimitMs) {
    return { action: 'leave', why: 'resumed' };
  }
  const resumes = record.sweepResumes ?? 0;
  if (resumes >= MAX_SWEEP_RESUMES) {
    return { action: 'fail', guard: 'stalled', reason: stalledReason(kind, quietMs, resumes) };
  }
  return { action: 'resume' };
};
