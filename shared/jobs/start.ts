import { monotonicFactory } from 'ulid';
import { ApiError } from '#shared/api/errors.js';
import { logger } from '#shared/platform/logger.js';
import { idField, type JobKind, jobIdOf, type LockSubject } from './kind.js';
import type { JobQueue } from './queue.js';
import { isStaleHolder, type JobRecord } from './record.js';
import type { JobLock, JobRepository } from './repository.js';
import { isActiveStatus } from './status.js';
import { notQueued, notStarted, queueUnavailable, titleOf } from './wording.js';

export interface StartDeps<R extends JobRecord> {
  repository: JobRepository<R>;
  queue: JobQueue;
  now?: () => Date;
  newId?: () => string;
}

const LOCK_ATTEMPTS = 3;

/** ULIDs: unique, sortable by creation time, and strictly increasing within one process. */
const nextId = monotonicFactory();

/** A subject is locked by another active job. */
class LockConflict extends Error {
  constructor(readonly holder: JobRecord) {
    super('Subject locked by another job');
  }
}

type Request = { organizationId: string };

/** Whether two requests (or records) lock the same subjects: a live job with them is the same request. */
const sameSubjects = <Q extends Request>(kind: { lockSubjects(request: Q): readonly LockSubject[] }, a: Q, b: Q) =>
  a.organizationId === b.organizationId &&
  JSON.stringify(kind.lockSubjects(a)) === JSON.stringify(kind.lockSubjects(b));

/**
 * How long a request's claim to queue a job's first message holds: an API function's whole
 * time (29 s) and a little more. A repeat after that finishes a start that stopped before queuing.
 */
const QUEUE_CLAIM_MS = 30_000;

/**
 * Starts a job (docs/api.md: documents/migrate, users/erase): records it (pending, with the API
 * key that asked), locks its subjects, queues the first message, and marks the record queued.
 *
 * - The usual case, no lock on its subjects: the record and every lock in one transaction
 *   (repository.createLocked), then the message.
 * - Otherwise, each step a conditional write, undone on failure:
 *   - the same request while its job is active answers that job's id, queuing nothing; if an
 *     earlier attempt of it stopped before queuing, the repeat finishes that one;
 *   - a lock held by a job that is gone, over, or abandoned (never queued) is taken over;
 *   - a subject locked by an active job of another request: 409 ABORTED;
 *   - a record that loses a lock race is marked failed and its locks are released, so that
 *     nothing stays pending.
 * - A message that cannot be queued (503): the record is marked failed and its locks released.
 */
export const startJob = async <R extends JobRecord & Q, Q extends Request, V, Id extends string>(
  kind: JobKind<R, Q, V, Id>,
  deps: StartDeps<R>,
  request: Q,
  requestedBy: string,
): Promise<Record<Id, string>> => {
  const { repository, now = () => new Date(), newId = () => nextId() } = deps;
  const at = now().toISOString();
  // This request takes on queuing its message.
  const record = { ...newJobRecord(kind, request, requestedBy, newId(), at), queueClaimedAt: at } as R;
  const id = jobIdOf(kind, record);
  const subjects = kind.lockSubjects(record);
  const locks = subjects.map((subject) => ({ ...lockOf(record, id, subject), createdAt: at }));
  const all = subjects.map(({ subject }) => subject);
  if (await repository.createLocked(record, locks)) return queueAndMark(kind, deps, record, all);

  // A lock is there: whose? A repeated request costs this read (two) and no write.
  const [first] = subjects;
  const existing = first && (await activeHolder(repository, request.organizationId, first.subject, now()));
  // The transaction applied after all (answered late, then retried without its token): it is ours.
  if (existing && jobIdOf(kind, existing) === id) return queueAndMark(kind, deps, record, all);
  if (existing && sameSubjects(kind, existing, request)) {
    if (existing.status !== 'pending' || existing.queuedAt !== undefined) {
      return idField(kind, jobIdOf(kind, existing));
    }
    // An earlier attempt of this request stopped between recording and queuing, or is still
    // queuing: the first repeat to claim it finishes it (unless the taker before it is recent
    // and may still be at it); the others answer its id. Identical requests at once queue one message.
    const earlier = jobIdOf(kind, existing);
    const claimedAt = now();
    const staleBefore = new Date(claimedAt.getTime() - QUEUE_CLAIM_MS).toISOString();
    if (!(await repository.claimQueueing(earlier, claimedAt.toISOString(), staleBefore))) return idField(kind, earlier);
    return lockAndQueue(kind, deps, existing, request);
  }

  // The record exists before any lock names it, so a lock never points at a missing record
  // unless that record's request died (then the lock is stale and recoverable).
  await repository.create(record);
  return lockAndQueue(kind, deps, record, request);
};

/** A new record of the kind for `request`: pending, its counters at 0, its page fields at their start. */
export const newJobRecord = <R extends JobRecord & Q, Q extends Request, V, Id extends string>(
  kind: JobKind<R, Q, V, Id>,
  request: Q,
  requestedBy: string,
  id: string,
  at: string,
): R =>
  ({
    [kind.idAttribute]: id,
    organizationId: request.organizationId,
    ...kind.fields(request, id),
    status: 'pending',
    ...Object.fromEntries(kind.counters.map((counter) => [counter, 0])),
    ...kind.pageFields,
    createdAt: at,
    updatedAt: at,
    runs: {},
    requestedBy,
  }) as unknown as R;

/** A new job id: a ULID (sortable by creation time, strictly increasing within one process). */
export const newJobId = (): string => nextId();

/** The lock of one subject of the job, as it names the job (without its time). */
const lockOf = (record: JobRecord, jobId: string, { subject, role }: LockSubject): Omit<JobLock, 'createdAt'> => ({
  organizationId: record.organizationId,
  subject,
  ...(role ? { role } : {}),
  jobId,
});

/** Best effort: every step is tried, failures are logged (the caller is answering an error anyway). */
const undo = async (kind: { name: string; idAttribute: string }, id: string, steps: (() => Promise<unknown>)[]) => {
  const results = await Promise.allSettled(steps.map((step) => step()));
  for (const result of results) {
    if (result.status === 'rejected') {
      logger.error(`Could not undo a ${kind.name} step`, { error: result.reason, ...idField(kind, id) });
    }
  }
};

/** Marks the record failed (only while unqueued) and releases the locks it took. */
const giveUp = <R extends JobRecord>(
  kind: { name: string; idAttribute: string },
  { repository, now = () => new Date() }: StartDeps<R>,
  record: R,
  held: readonly string[],
  reason: string,
) => {
  const id = jobIdOf(kind, record);
  return undo(kind, id, [
    () => repository.fail(id, reason, now(), { onlyIfUnqueued: true }),
    ...held.map((subject) => () => repository.releaseLock(record.organizationId, subject, id)),
  ]);
};

/** Takes each subject's lock one by one (taking over stale holders), then queues. */
const lockAndQueue = async <R extends JobRecord & Q, Q extends Request, V, Id extends string>(
  kind: JobKind<R, Q, V, Id>,
  deps: StartDeps<R>,
  record: R,
  request: Q,
): Promise<Record<Id, string>> => {
  const { repository, now = () => new Date() } = deps;
  const id = jobIdOf(kind, record);
  const held: string[] = [];
  try {
    for (const subject of kind.lockSubjects(record)) {
      await acquireLock(kind, repository, lockOf(record, id, subject), now);
      held.push(subject.subject);
    }
  } catch (error) {
    const lost = error instanceof LockConflict;
    await giveUp(kind, deps, record, held, lost ? kind.wording.lostLock : notStarted(kind));
    if (!lost) throw error;
    // Lost a race against the same request: answer the winner's id, as a repeat would.
    if (sameSubjects(kind, error.holder as R, request)) return idField(kind, jobIdOf(kind, error.holder));
    // The job in the way, which the caller may follow with the status route (same organization).
    throw new ApiError('ABORTED', kind.wording.conflict(request), idField(kind, jobIdOf(kind, error.holder)));
  }
  return queueAndMark(kind, deps, record, held);
};

/** Sends the job's first message and marks the record queued; `held`: the locks to release if it cannot be sent. */
const queueAndMark = async <R extends JobRecord & Q, Q extends Request, V, Id extends string>(
  kind: JobKind<R, Q, V, Id>,
  deps: StartDeps<R>,
  record: R,
  held: readonly string[],
): Promise<Record<Id, string>> => {
  const { repository, queue, now = () => new Date() } = deps;
  const id = jobIdOf(kind, record);
  try {
    await queue.send(id);
  } catch (error) {
    logger.error(`${titleOf(kind)} message could not be queued`, { error, ...idField(kind, id) });
    await giveUp(kind, deps, record, held, notQueued(kind));
    throw new ApiError('UNAVAILABLE', queueUnavailable(kind), idField(kind, id));
  }
  // The message is out: the job will run whatever happens next. Without the mark the record
  // would only look abandoned once it has waited in the queue for minutes.
  await repository
    .markQueued(id, now().toISOString())
    .catch((error) => logger.warn(`Could not mark the ${kind.name} queued`, { error, ...idField(kind, id) }));
  // The audit line of every job started: who asked for what (the API key, never its token).
  logger.info('Job started', {
    kind: kind.name,
    jobId: id,
    organizationId: record.organizationId,
    requestedBy: record.requestedBy,
  });
  return idField(kind, id);
};

/** The active job that holds this subject's lock, if any (stale holders do not count). */
const activeHolder = async <R extends JobRecord>(
  repository: JobRepository<R>,
  organizationId: string,
  subject: string,
  now: Date,
): Promise<R | undefined> => {
  const lock = await repository.getLock(organizationId, subject);
  if (!lock) return undefined;
  const record = await repository.get(lock.jobId);
  return record && !isStaleHolder(record, now) ? record : undefined;
};

const acquireLock = async <R extends JobRecord>(
  kind: { name: string; idAttribute: string; wording: { locksBusy: string } },
  repository: JobRepository<R>,
  lock: Omit<JobLock, 'createdAt'>,
  now: () => Date,
): Promise<void> => {
  for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
    if (await repository.putLock({ ...lock, createdAt: now().toISOString() })) return;
    const current = await repository.getLock(lock.organizationId, lock.subject);
    if (!current) continue; // released meanwhile: try again
    if (current.jobId === lock.jobId) return; // taken by an earlier attempt of this job
    const holder = await repository.get(current.jobId);
    if (holder && !isStaleHolder(holder, now())) throw new LockConflict(holder);
    // Stale. An abandoned holder is failed first (only if it is still unqueued, so a record the
    // consumer has meanwhile started is never taken over), then the lock changes hands only if
    // it still names that holder.
    if (holder && isActiveStatus(holder.status)) {
      const failed = await repository.fail(current.jobId, notQueued(kind), now(), { onlyIfUnqueued: true });
      if (!failed) continue;
    }
    if (await repository.putLock({ ...lock, createdAt: now().toISOString() }, current.jobId)) return;
  }
  throw new ApiError('UNAVAILABLE', kind.wording.locksBusy);
};
