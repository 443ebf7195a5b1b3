import { logger } from '#shared/platform/logger.js';
import { type Delivery, LeaseLostError, type RunOutcome, SAFETY_MARGIN_MS, timeToContinue } from './delivery-policy.js';
import { idField, type JobKind, jobIdOf } from './kind.js';
import type { JobQueue } from './queue.js';
import type { JobRecord } from './record.js';
import type { JobRepository } from './repository.js';
import type { JobStep } from './step.js';
import { titleOf } from './wording.js';

/** What the engine needs to run a job; a kind's step adds its own (its stores, page size, ...). */
export interface RunDeps<R extends JobRecord> {
  repository: JobRepository<R>;
  queue: JobQueue;
  now?: () => Date;
  /** Below this much time left no new page starts (delivery-policy.ts, SAFETY_MARGIN_MS). */
  safetyMarginMs?: number;
  newRunId?: () => string;
}

/** The run a delivery holds the lease for. */
export interface LeasedRun<R> {
  record: R;
  run: string;
  delivery: Delivery;
  /** Until when a lease renewed now lasts. */
  leaseUntil: () => number;
  /** Queued once the first page is saved (on the last attempt). */
  watchdog?: (() => Promise<void>) | undefined;
}

/**
 * Pages of the kind's step under the lease, until the step has nothing left (completed) or time
 * runs short (continued). Each page's progress (its counts, the kind's page fields and this
 * run's page number) is saved under the lease before the step's `saved` work: a page of a run is
 * saved once, so its counts are added once whatever crashes or repeats.
 */
export const runPages = async <R extends JobRecord & Q, Q extends { organizationId: string }, V, D extends RunDeps<R>>(
  kind: JobKind<R, Q, V, string>,
  step: JobStep<R, D>,
  deps: D,
  { record, run, delivery, leaseUntil, watchdog }: LeasedRun<R>,
): Promise<RunOutcome> => {
  const { repository, queue, now = () => new Date(), safetyMarginMs = SAFETY_MARGIN_MS } = deps;
  const id = jobIdOf(kind, record);
  const ids = idField(kind, id);
  const savedPages: Record<string, number> = { ...record.runs };
  const next = step(deps, { record, run, savedPages, now });
  let page = 0;

  for (;;) {
    if (timeToContinue(delivery, page, safetyMarginMs)) {
      // Release first, then queue: if the send fails this delivery fails and is retried, so
      // the job is never left without a message.
      await repository.releaseLease(id, run);
      await queue.send(id);
      logger.info(`${titleOf(kind)} continues in a new message`, { ...ids, run, pages: page });
      return 'continued';
    }
    const result = await next(page + 1);
    if (result.outcome === 'empty') continue;
    if (result.outcome === 'done') {
      if (!(await repository.complete(id, run, now().toISOString()))) {
        throw new LeaseLostError(`Lost the lease on ${kind.name} ${id}`);
      }
      kind.ended?.('completed');
      await repository.releaseLocks(record);
      logger.info(`${titleOf(kind)} completed`, { ...ids, run });
      return 'completed';
    }
    page += 1;
    if (result.outcome === 'failed') {
      // What the page read is counted first, so that the failed record says exactly what was applied.
      const saved = await repository.saveProgress(id, run, {
        counts: result.counts,
        ...(result.fields ? { fields: result.fields } : {}),
        run,
        page,
        leaseUntil: leaseUntil(),
        at: now().toISOString(),
      });
      if (!saved || !(await repository.fail(id, result.reason, now(), { owner: run }))) {
        throw new LeaseLostError(`Lost the lease on ${kind.name} ${id}`);
      }
      kind.ended?.('failed');
      await repository.releaseLocks(record);
      logger.warn(`${titleOf(kind)} failed`, { ...ids, run, reason: result.reason });
      return 'failed';
    }
    const saved = await repository.saveProgress(id, run, {
      counts: result.counts,
      ...(result.fields ? { fields: result.fields } : {}),
      run,
      page,
      leaseUntil: leaseUntil(),
      at: now().toISOString(),
    });
    if (!saved) throw new LeaseLostError(`Lost the lease on ${kind.name} ${id}`);
    if (page === 1) await watchdog?.();
    savedPages[run] = page;
    // Only now, with the progress saved, what the page may not do before (the deletes).
    await result.saved?.();
  }
};
