import { randomUUID } from 'node:crypto';
import {
  type Delivery,
  delayUntil,
  isLastAttempt,
  LeaseHeldError,
  LeaseLostError,
  leaseEnd,
  onLeaseRefused,
  onRunFailed,
  type RunOutcome,
  SAFETY_MARGIN_MS,
  timeToContinue,
} from '#shared/jobs/delivery-policy.js';
import { logger } from '#shared/platform/logger.js';
import { countMigrationEnded } from '#shared/platform/metrics.js';
import { type ChangeAttribution, migrationActor } from '#shared/preferences/change-attribution.js';
import type { MigrationEntryStore } from '#shared/preferences/store.js';
import type { MigrationRecord } from './model.js';
import { copyPage, deleteSources, PAGE_SIZE, pageCounts, skippedSources, WRITE_CONCURRENCY } from './move-page.js';
import type { MigrationQueue } from './queue.js';
import type { MigrationRepository } from './repository.js';
import { nextCheckpoint } from './skipped-checkpoint.js';

/** Pages in a row that deleted nothing (every entry changed under us) before the run gives up. */
export const MAX_STALLED_PAGES = 5;

export interface WorkerDeps {
  entries: MigrationEntryStore;
  repository: MigrationRepository;
  queue: MigrationQueue;
  now?: () => Date;
  pageSize?: number;
  concurrency?: number;
  safetyMarginMs?: number;
  newRunId?: () => string;
}

/**
 * Performs (part of) one migration for one queue delivery: the I/O around the delivery policy
 * (delivery-policy.ts) and the move step (move-page.ts, move-decision.ts). docs/design.md ("One
 * delivery of the consumer") has the full design; in short:
 *
 * 1. Lease: a conditional update on the record makes this delivery the only one working.
 * 2. Pages: the first PAGE_SIZE source entries (always from the start: processed entries are
 *    deleted), their targets in one batch read, then each entry decided and written.
 * 3. Progress: counts, the page number of this run and the skipped checkpoint are saved under
 *    the lease, and only then are the source entries deleted, each only if unchanged.
 * 4. An empty source completes the migration and releases the document locks. Near the time
 *    limit the lease is released and a continuation message queued.
 */
export const runMigration = async (deps: WorkerDeps, migrationId: string, delivery: Delivery): Promise<RunOutcome> => {
  const { repository, queue, now = () => new Date() } = deps;
  const run = (deps.newRunId ?? randomUUID)();
  const leaseUntil = () => leaseEnd(now().getTime(), delivery.remainingTimeMs?.());
  const lastAttempt = isLastAttempt(delivery);

  let record: MigrationRecord | undefined;
  try {
    const until = leaseUntil();
    record = await repository.acquireLease(migrationId, run, until, now());
    if (!record) {
      const current = await repository.get(migrationId);
      const refused = onLeaseRefused(current, delivery, now().getTime());
      switch (refused.action) {
        case 'drop':
          if (refused.reason === 'unknown') {
            logger.warn('Migration message for an unknown migration: dropped', { migrationId });
          } else {
            // A run that finished but died before it freed the documents leaves its locks; the
            // release only deletes locks this migration still holds.
            if (current) await releaseLocks(repository, current);
            logger.info('Migration already finished: duplicate message dropped', {
              migrationId,
              status: current?.status,
            });
          }
          return 'ignored';
        case 'requeue':
          await queue.send(migrationId, refused.delaySeconds);
          logger.warn('Migration leased by another delivery on the last attempt: re-queued', {
            migrationId,
            delaySeconds: refused.delaySeconds,
          });
          return 'deferred';
        case 'retry':
          throw new LeaseHeldError(`Migration ${migrationId} is being processed by another delivery`);
      }
    }
    logger.info('Migration run started', { migrationId, run, moved: record.moved, skipped: record.skipped });
    // On the last attempt, once it has shown it can make progress (a page saved), a watchdog:
    // should the function then be killed (timeout, out of memory) before it can mark anything,
    // this message resumes the migration once the lease has expired. After a normal end it
    // finds the migration finished and is dropped.
    const watchdog = lastAttempt ? () => queue.send(migrationId, delayUntil(until, now().getTime())) : undefined;
    return await processPages(deps, record, run, delivery, leaseUntil, watchdog);
  } catch (error) {
    const failed = onRunFailed(error, delivery);
    if (failed.action === 'leave') throw error;
    logger.error('Migration run failed', { error, migrationId, run, receiveCount: delivery.receiveCount, lastAttempt });
    if (failed.action === 'fail') {
      try {
        if (await repository.fail(migrationId, failed.reason, now(), { owner: run })) {
          countMigrationEnded('failed');
          const current = record ?? (await repository.get(migrationId));
          if (current) await releaseLocks(repository, current);
        }
      } catch (failError) {
        logger.error('Could not mark the migration failed', { error: failError, migrationId });
      }
    } else {
      await repository.releaseLease(migrationId, run).catch(() => undefined);
    }
    throw error;
  }
};

const releaseLocks = async (repository: MigrationRepository, record: MigrationRecord): Promise<void> => {
  await Promise.all([
    repository.releaseLock(record.organizationId, record.documentId, record.migrationId),
    repository.releaseLock(record.organizationId, record.newDocumentId, record.migrationId),
  ]);
};

/** Pages until the source is empty (completed) or time runs short (continued), under the lease. */
const processPages = async (
  deps: WorkerDeps,
  record: MigrationRecord,
  run: string,
  delivery: Delivery,
  leaseUntil: () => number,
  watchdog?: () => Promise<void>,
): Promise<RunOutcome> => {
  const {
    entries,
    repository,
    queue,
    now = () => new Date(),
    pageSize = PAGE_SIZE,
    concurrency = WRITE_CONCURRENCY,
    safetyMarginMs = SAFETY_MARGIN_MS,
  } = deps;
  const { migrationId, organizationId, documentId, newDocumentId } = record;
  const savedPages: Record<string, number> = { ...record.runs };
  let checkpoint = new Set(record.skippedCheckpoint);
  let page = 0;
  let stalled = 0;

  for (;;) {
    if (timeToContinue(delivery, page, safetyMarginMs)) {
      // Release first, then queue: if the send fails this delivery fails and is retried, so
      // the migration is never left without a message.
      await repository.releaseLease(migrationId, run);
      await queue.send(migrationId);
      logger.info('Migration continues in a new message', { migrationId, run, pages: page });
      return 'continued';
    }

    const sources = await entries.listDocumentEntries(organizationId, documentId, pageSize);
    if (sources.length === 0) {
      if (!(await repository.complete(migrationId, run, now().toISOString()))) {
        throw new LeaseLostError(`Lost the lease on migration ${migrationId}`);
      }
      countMigrationEnded('completed');
      await releaseLocks(repository, record);
      logger.info('Migration completed', { migrationId, run });
      return 'completed';
    }
    page += 1;

    // Every copy and delete of the page is the migration's change (change-attribution.ts).
    const change: ChangeAttribution = {
      cause: 'migration',
      changedBy: migrationActor(migrationId),
      changedAt: now().toISOString(),
    };
    const outcomes = await copyPage(
      entries,
      sources,
      { migrationId, organizationId, newDocumentId, run, page, savedPages, checkpoint },
      concurrency,
      change,
    );
    const next = nextCheckpoint(checkpoint, sources, pageSize, skippedSources(outcomes));
    const saved = await repository.saveProgress(migrationId, run, {
      ...pageCounts(outcomes),
      run,
      page,
      skippedCheckpoint: [...next],
      leaseUntil: leaseUntil(),
      at: now().toISOString(),
    });
    if (!saved) throw new LeaseLostError(`Lost the lease on migration ${migrationId}`);
    if (page === 1) await watchdog?.();
    savedPages[run] = page;
    checkpoint = next;

    // Only now, with the progress saved, the sources go.
    stalled = (await deleteSources(entries, outcomes, concurrency, change)) ? 0 : stalled + 1;
    if (stalled >= MAX_STALLED_PAGES) {
      throw new Error(`No progress on migration ${migrationId} in ${stalled} pages: its entries keep changing`);
    }
  }
};
