import { isActiveStatus, type JobStatus } from './status.js';
import { failedAfter, type Worded } from './wording.js';

/** SQS delays a message by at most 15 minutes. */
export const MAX_DELAY_SECONDS = 900;

/** What the delivery policy reads of a job's record. */
export interface LeasedRecord {
  status: JobStatus;
  leaseUntil?: number;
}

/*
 * What to do with a queue delivery of a job's message: run, continue in a new message, retry,
 * re-queue, give up. Pure: the engine (run.ts, pages.ts) does the I/O these decisions ask for.
 */

/** Below this much remaining time no new page starts: progress is saved and a continuation queued. */
export const SAFETY_MARGIN_MS = 15_000;
/** The lease outlives its holder's deadline by this much (Lambda stops the holder at its deadline). */
export const LEASE_GRACE_MS = 5_000;
/** Lease length when the deadline is unknown (no Lambda context). */
export const DEFAULT_LEASE_MS = 5 * 60_000;
/** Longest delay of a message re-queued behind another delivery's lease on the last attempt. */
export const MAX_LEASE_WAIT_SECONDS = 10;

export interface Delivery {
  /** Time left in this invocation (Lambda's context.getRemainingTimeInMillis), if known. */
  remainingTimeMs?: () => number;
  /** This message's receive count and the queue's maximum: the last attempt marks failure. */
  receiveCount: number;
  maxReceiveCount: number;
}

export type RunOutcome = 'completed' | 'failed' | 'continued' | 'deferred' | 'ignored';

/** Another delivery holds a live lease on the job: this one retries later. */
export class LeaseHeldError extends Error {
  override readonly name = 'LeaseHeldError';
}

/** The lease expired and another delivery took over mid-run: stop without touching anything more. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/** After this delivery the queue gives up on the message (it goes to the dead-letter queue). */
export const isLastAttempt = (delivery: Delivery): boolean => delivery.receiveCount >= delivery.maxReceiveCount;

/** Until when (epoch ms) a lease taken or renewed at `nowMs` lasts: the deadline plus a grace, if known. */
export const leaseEnd = (nowMs: number, remainingMs: number | undefined): number =>
  remainingMs === undefined ? nowMs + DEFAULT_LEASE_MS : nowMs + remainingMs + LEASE_GRACE_MS;

/** Seconds until a lease ending at `until` has expired, as an SQS delay. */
export const delayUntil = (until: number, nowMs: number): number =>
  Math.min(MAX_DELAY_SECONDS, Math.max(1, Math.ceil((until - nowMs) / 1000) + 1));

export type LeaseRefused =
  /** Nothing to do: the job is unknown or already finished (a duplicate message). */
  | { action: 'drop'; reason: 'unknown' | 'finished' }
  /** Acknowledge this message and queue a new one after `delaySeconds`. */
  | { action: 'requeue'; delaySeconds: number }
  /** Fail this delivery with LeaseHeldError: the queue retries it later. */
  | { action: 'retry' };

/** What a delivery does when another one holds the lease; `current` is the record as read now. */
export const onLeaseRefused = (current: LeasedRecord | undefined, delivery: Delivery, nowMs: number): LeaseRefused => {
  if (!current) return { action: 'drop', reason: 'unknown' };
  if (!isActiveStatus(current.status)) return { action: 'drop', reason: 'finished' };
  if (isLastAttempt(delivery)) {
    // The last attempt must not drop the job behind a lease whose holder may be gone
    // (a process killed mid-run): a new message comes back once that lease has expired.
    // Short enough that a live holder's finish is noticed soon; a chain of these goes on
    // until the lease is released or has expired.
    return {
      action: 'requeue',
      delaySeconds: Math.min(MAX_LEASE_WAIT_SECONDS, delayUntil(current.leaseUntil ?? 0, nowMs)),
    };
  }
  return { action: 'retry' };
};

/**
 * Whether to stop before the next page and continue in a new message: too little time is left.
 * Always at least one page per run, so that a short deadline still makes progress.
 */
export const timeToContinue = (delivery: Delivery, pagesDone: number, safetyMarginMs: number): boolean =>
  pagesDone > 0 && delivery.remainingTimeMs !== undefined && delivery.remainingTimeMs() < safetyMarginMs;

export type RunFailed =
  /** Another delivery is at work (a held or lost lease): leave everything to it. */
  | { action: 'leave' }
  /** The last attempt: mark the job failed with `reason` and free its subjects. */
  | { action: 'fail'; reason: string }
  /** Release the lease so that the queue's retry can start at once instead of waiting for it to expire. */
  | { action: 'release' };

/** What a run of a job of `kind` that threw `error` does before failing its delivery. */
export const onRunFailed = (error: unknown, delivery: Delivery, kind: Worded): RunFailed => {
  if (error instanceof LeaseHeldError || error instanceof LeaseLostError) return { action: 'leave' };
  if (!isLastAttempt(delivery)) return { action: 'release' };
  return { action: 'fail', reason: failedAfter(kind, delivery.receiveCount, (error as Error)?.name ?? 'Error') };
};
