import { randomUUID } from 'node:crypto';
import { logger } from '#shared/platform/logger.js';
import {
  type Delivery,
  delayUntil,
  isLastAttempt,
  LeaseHeldError,
  leaseEnd,
  onLeaseRefused,
  onRunFailed,
  type RunOutcome,
} from './delivery-policy.js';
import { idField, type JobKind } from './kind.js';
import { type RunDeps, runPages } from './pages.js';
import type { JobRecord } from './record.js';
import type { JobStep } from './step.js';
import { titleOf } from './wording.js';

/**
 * Performs (part of) one job for one queue delivery (docs/design.md, One delivery of the
 * consumer): the I/O around the delivery policy (delivery-policy.ts).
 *
 * 1. Lease: a conditional update on the record makes this delivery the only one working. A
 *    refused lease drops a duplicate message (freeing the subjects of a finished job that died
 *    before it could), re-queues the last attempt, or fails the delivery for the queue's retry.
 * 2. Pages of the kind's step under the lease (pages.ts), until the job completes or time runs short.
 * 3. A run that fails releases its lease for the retry; on the last attempt it marks the job
 *    failed and frees its subjects. On the last attempt a watchdog message, queued once the
 *    first page is saved, resumes the job should the function be killed before it can mark anything.
 */
export const runJob = async <R extends JobRecord & Q, Q extends { organizationId: string }, V, D extends RunDeps<R>>(
  kind: JobKind<R, Q, V, string>,
  step: JobStep<R, D>,
  deps: D,
  id: string,
  delivery: Delivery,
): Promise<RunOutcome> => {
  const { repository, queue, now = () => new Date() } = deps;
  const run = (deps.newRunId ?? randomUUID)();
  const ids = idField(kind, id);
  const leaseUntil = () => leaseEnd(now().getTime(), delivery.remainingTimeMs?.());
  const lastAttempt = isLastAttempt(delivery);

  let record: R | undefined;
  try {
    const until = leaseUntil();
    record = await repository.acquireLease(id, run, until, now());
    if (!record) return await leaseRefused(kind, deps, id, delivery);
    const counts = Object.fromEntries(kind.counters.map((counter) => [counter, (record as never)[counter]]));
    logger.info(`${titleOf(kind)} run started`, { ...ids, run, ...counts });
    // On the last attempt, once it has shown it can make progress (a page saved), a watchdog:
    // should the function then be killed (timeout, out of memory) before it can mark anything,
    // this message resumes the job once the lease has expired. After a normal end it finds the
    // job finished and is dropped.
    const watchdog = lastAttempt ? () => queue.send(id, delayUntil(until, now().getTime())) : undefined;
    return await runPages(kind, step, deps, { record, run, delivery, leaseUntil, watchdog });
  } catch (error) {
    const failed = onRunFailed(error, delivery, kind);
    if (failed.action === 'leave') throw error;
    logger.error(`${titleOf(kind)} run failed`, {
      error,
      ...ids,
      run,
      receiveCount: delivery.receiveCount,
      lastAttempt,
    });
    if (failed.action === 'fail') {
      try {
        if (await repository.fail(id, failed.reason, now(), { owner: run })) {
          kind.ended?.('failed');
          const current = record ?? (await repository.get(id));
          if (current) await repository.releaseLocks(current);
        }
      } catch (failError) {
        logger.error(`Could not mark the ${kind.name} failed`, { error: failError, ...ids });
      }
    } else {
      await repository.releaseLease(id, run).catch(() => undefined);
    }
    throw error;
  }
};

/** Another delivery holds the lease, or there is nothing to lease: what the delivery policy says. */
const leaseRefused = async <R extends JobRecord>(
  kind: { name: string; idAttribute: string },
  { repository, queue, now = () => new Date() }: RunDeps<R>,
  id: string,
  delivery: Delivery,
): Promise<RunOutcome> => {
  const ids = idField(kind, id);
  const current = await repository.get(id);
  const refused = onLeaseRefused(current, delivery, now().getTime());
  switch (refused.action) {
    case 'drop':
      if (refused.reason === 'unknown') {
        logger.warn(`${titleOf(kind)} message for an unknown ${kind.name}: dropped`, ids);
      } else {
        // A run that finished but died before it freed its subjects leaves its locks; the
        // release only deletes locks this job still holds.
        if (current) await repository.releaseLocks(current);
        logger.info(`${titleOf(kind)} already finished: duplicate message dropped`, {
          ...ids,
          status: current?.status,
        });
      }
      return 'ignored';
    case 'requeue':
      await queue.send(id, refused.delaySeconds);
      logger.warn(`${titleOf(kind)} leased by another delivery on the last attempt: re-queued`, {
        ...ids,
        delaySeconds: refused.delaySeconds,
      });
      return 'deferred';
    case 'retry':
      throw new LeaseHeldError(`${titleOf(kind)} ${id} is being processed by another delivery`);
  }
};
