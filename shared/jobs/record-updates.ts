import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { ACTIVE_PK_ATTRIBUTE } from './keys.js';
import type { JobKind } from './kind.js';

/*
 * The conditional updates of a job record (repository.ts sends them): what each write sets and
 * on which condition, the same for every kind but for the kind's counters, page fields and
 * finishing attributes. Pure.
 */

/** An UpdateItem of a record, table and key aside. */
export type RecordUpdate = Omit<UpdateCommandInput, 'TableName' | 'Key'>;

// biome-ignore lint/suspicious/noExplicitAny: any kind's record, request and view
type Kind = JobKind<any, any, unknown>;

/** Progress of one page, saved under the lease before the page's own deletes. */
export interface PageProgress {
  /** What the page adds to each of the kind's counters. */
  counts: Readonly<Record<string, number>>;
  /** The kind's page fields as they stand after this page (a migration's skipped checkpoint). */
  fields?: Readonly<Record<string, unknown>>;
  run: string;
  page: number;
  leaseUntil: number;
  at: string;
}

/**
 * When `fail` may mark a job failed (it must be active in every case):
 * - `owner`: no other delivery holds a live lease on it; with `updatedAt`, also only if it has
 *   made no progress since that read (the sweeper's guard);
 * - `onlyIfUnqueued`: it is still pending and was never queued;
 * - `evenIfLeased`: whoever holds it (an operator's forced failure; the holder stops at its next save).
 */
export type FailGuard = { owner: string; updatedAt?: string } | { onlyIfUnqueued: true } | { evenIfLeased: true };

/** The record as read: a re-queue applies only if neither has changed since. */
export interface SeenRecord {
  id: string;
  updatedAt: string;
  sweptAt?: string;
}

const ACTIVE = { ':pending': 'pending', ':inProgress': 'in_progress' };
const FREE_LEASE = '(attribute_not_exists(leaseUntil) OR leaseUntil < :nowMs OR leaseOwner = :owner)';

/** `SET #p0 = :p0, ...` parts for attributes with names of the kind's choosing. */
const assignments = (prefix: string, values: Readonly<Record<string, unknown>>) => {
  const entries = Object.entries(values);
  return {
    parts: entries.map((_, i) => `#${prefix}${i} = :${prefix}${i}`),
    names: Object.fromEntries(entries.map(([name], i) => [`#${prefix}${i}`, name])),
    values: Object.fromEntries(entries.map(([, value], i) => [`:${prefix}${i}`, value])),
  };
};

/**
 * Takes on queuing the first message of a pending, unqueued job, unless another request took
 * it on after `staleBefore` (it may still be queuing).
 */
export const claimQueueingUpdate = (at: string, staleBefore: string): RecordUpdate => ({
  UpdateExpression: 'SET queueClaimedAt = :at',
  ConditionExpression:
    'attribute_exists(pk) AND #status = :pending AND attribute_not_exists(queuedAt) AND (attribute_not_exists(queueClaimedAt) OR queueClaimedAt < :stale)',
  ExpressionAttributeNames: { '#status': 'status' },
  ExpressionAttributeValues: { ':at': at, ':stale': staleBefore, ':pending': 'pending' },
});

export const markQueuedUpdate = (at: string): RecordUpdate => ({
  UpdateExpression: 'SET queuedAt = :at',
  ConditionExpression: 'attribute_exists(pk)',
  ExpressionAttributeValues: { ':at': at },
});

/** Takes or renews the lease: only if the job is active and the lease free, expired or already `owner`'s. */
export const acquireLeaseUpdate = (owner: string, until: number, now: Date): RecordUpdate => ({
  UpdateExpression:
    'SET leaseOwner = :owner, leaseUntil = :until, #status = :inProgress, updatedAt = :at, startedAt = if_not_exists(startedAt, :at)',
  ConditionExpression: `attribute_exists(pk) AND #status IN (:pending, :inProgress) AND ${FREE_LEASE}`,
  ExpressionAttributeNames: { '#status': 'status' },
  ExpressionAttributeValues: {
    ...ACTIVE,
    ':owner': owner,
    ':until': until,
    ':at': now.toISOString(),
    ':nowMs': now.getTime(),
  },
  ReturnValues: 'ALL_NEW',
});

/** Adds a page's counts once: only under `owner`'s lease, and only for a page of its run not saved yet. */
export const saveProgressUpdate = (owner: string, progress: PageProgress): RecordUpdate => {
  const counts = Object.entries(progress.counts);
  const fields = assignments('field', progress.fields ?? {});
  const add = counts.length ? `ADD ${counts.map((_, i) => `#count${i} :count${i}`).join(', ')} ` : '';
  return {
    UpdateExpression:
      // A saved page is progress: the sweeper's count of re-queues starts over.
      `${add}SET ${['#runs.#run = :page', ...fields.parts, 'leaseUntil = :until', 'updatedAt = :at'].join(', ')} REMOVE sweepResumes, sweptAt`,
    // Each page of a run once: a repeat must not add its counts again.
    ConditionExpression:
      'leaseOwner = :owner AND #status = :inProgress AND (attribute_not_exists(#runs.#run) OR #runs.#run < :page)',
    ExpressionAttributeNames: {
      '#status': 'status',
      '#runs': 'runs',
      '#run': progress.run,
      ...Object.fromEntries(counts.map(([name], i) => [`#count${i}`, name])),
      ...fields.names,
    },
    ExpressionAttributeValues: {
      ...Object.fromEntries(counts.map(([, delta], i) => [`:count${i}`, delta])),
      ...fields.values,
      ':page': progress.page,
      ':until': progress.leaseUntil,
      ':at': progress.at,
      ':owner': owner,
      ':inProgress': 'in_progress',
    },
  };
};

export const releaseLeaseUpdate = (owner: string): RecordUpdate => ({
  UpdateExpression: 'REMOVE leaseOwner, leaseUntil',
  ConditionExpression: 'leaseOwner = :owner',
  ExpressionAttributeValues: { ':owner': owner },
});

/**
 * `REMOVE` parts for the kind's page fields. A job that ends, however it ends, drops them: they
 * only serve the next page, and they may hold user ids (a migration's skipped checkpoint), which
 * must not outlive the job (an erasure could not find them there).
 */
const pageFieldRemovals = (kind: Kind) => {
  const names = Object.keys(kind.pageFields ?? {});
  return {
    parts: names.map((_, i) => `#page${i}`),
    names: Object.fromEntries(names.map((name, i) => [`#page${i}`, name])),
  };
};

/** Completes the job under `owner`'s lease; it leaves the index of active jobs and drops its page fields. */
export const completeUpdate = (kind: Kind, owner: string, at: string): RecordUpdate => {
  const finished = assignments('end', kind.finished?.(at) ?? {});
  const pageFields = pageFieldRemovals(kind);
  return {
    UpdateExpression: `SET ${['#status = :completed', 'completedAt = :at', 'updatedAt = :at', ...finished.parts].join(', ')} REMOVE ${['leaseOwner', 'leaseUntil', ...pageFields.parts, 'sweepResumes', 'sweptAt', ACTIVE_PK_ATTRIBUTE].join(', ')}`,
    ConditionExpression: 'leaseOwner = :owner AND #status = :inProgress',
    ExpressionAttributeNames: {
      '#status': 'status',
      ...finished.names,
      ...pageFields.names,
    },
    ExpressionAttributeValues: {
      ':completed': 'completed',
      ':at': at,
      ':owner': owner,
      ':inProgress': 'in_progress',
      ...finished.values,
    },
  };
};

/**
 * Drops the page fields of a job that has ended, if it still has them: records that ended before
 * completing and failing dropped them (an operator's clean-up, repository.ts). Never an active job's.
 */
export const dropPageFieldsUpdate = (kind: Kind): RecordUpdate | undefined => {
  const pageFields = pageFieldRemovals(kind);
  if (pageFields.parts.length === 0) return undefined;
  return {
    UpdateExpression: `REMOVE ${pageFields.parts.join(', ')}`,
    ConditionExpression: '#status IN (:completed, :failed)',
    ExpressionAttributeNames: { '#status': 'status', ...pageFields.names },
    ExpressionAttributeValues: { ':completed': 'completed', ':failed': 'failed' },
  };
};

/** Marks an active job failed with `reason` if `guard` holds; it leaves the index of active jobs and drops its page fields. */
export const failUpdate = (kind: Kind, reason: string, at: Date, guard: FailGuard): RecordUpdate => {
  const active = '#status IN (:pending, :inProgress)';
  let condition: string;
  let values: Record<string, unknown>;
  if ('onlyIfUnqueued' in guard) {
    condition = '#status = :pending AND attribute_not_exists(queuedAt)';
    values = {};
  } else if ('evenIfLeased' in guard) {
    condition = active;
    values = { ':inProgress': 'in_progress' };
  } else {
    condition = `${active} AND ${FREE_LEASE}`;
    values = { ':inProgress': 'in_progress', ':nowMs': at.getTime(), ':owner': guard.owner };
    if (guard.updatedAt !== undefined) {
      condition += ' AND updatedAt = :seen';
      values[':seen'] = guard.updatedAt;
    }
  }
  const finished = assignments('end', kind.finished?.(at.toISOString()) ?? {});
  const pageFields = pageFieldRemovals(kind);
  return {
    UpdateExpression: `SET ${['#status = :failed', '#error = :reason', 'updatedAt = :at', ...finished.parts].join(', ')} REMOVE ${['leaseOwner', 'leaseUntil', ...pageFields.parts, ACTIVE_PK_ATTRIBUTE].join(', ')}`,
    ConditionExpression: condition,
    ExpressionAttributeNames: { '#status': 'status', '#error': 'error', ...finished.names, ...pageFields.names },
    ExpressionAttributeValues: {
      ':failed': 'failed',
      ':reason': reason,
      ':at': at.toISOString(),
      ':pending': 'pending',
      ...values,
      ...finished.values,
    },
  };
};

/**
 * Records a re-queue of a stalled job, before its message is sent: sets `sweptAt` and counts it
 * in `sweepResumes` (or, with `resetCount`, an operator's, starts the count over). Only if the
 * record is still active, unchanged since `seen` and without a live lease.
 */
export const markResumedUpdate = (seen: SeenRecord, at: Date, resetCount: boolean): RecordUpdate => ({
  UpdateExpression: resetCount ? 'SET sweptAt = :at REMOVE sweepResumes' : 'SET sweptAt = :at ADD sweepResumes :one',
  // Unchanged since read: a delivery that meanwhile took the lease or saved a page, or a
  // concurrent sweep that re-queued it already, wins, and nothing is sent.
  ConditionExpression:
    '#status IN (:pending, :inProgress) AND updatedAt = :seen AND ' +
    (seen.sweptAt === undefined ? 'attribute_not_exists(sweptAt)' : 'sweptAt = :seenSwept') +
    ' AND (attribute_not_exists(leaseUntil) OR leaseUntil < :nowMs)',
  ExpressionAttributeNames: { '#status': 'status' },
  ExpressionAttributeValues: {
    ...ACTIVE,
    ':at': at.toISOString(),
    ':seen': seen.updatedAt,
    ':nowMs': at.getTime(),
    ...(resetCount ? {} : { ':one': 1 }),
    ...(seen.sweptAt === undefined ? {} : { ':seenSwept': seen.sweptAt }),
  },
});
