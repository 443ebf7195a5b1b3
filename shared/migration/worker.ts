import { randomUUID } from 'node:crypto';
import pMap from 'p-map';
import { logger } from '#shared/lambda/logger.js';
import type { ChannelConfig, EntryKey } from '#shared/preferences/model.js';
import type { MarkedEntry, MigrationEntryStore } from '#shared/preferences/store.js';
import { isActiveStatus, type MigrationRecord } from './model.js';
import { MAX_DELAY_SECONDS, type MigrationQueue } from './queue.js';
import type { MigrationRepository } from './repository.js';

/** Source entries per page: one Query and one BatchGetItem (its 100-key maximum) per page. */
export const PAGE_SIZE = 100;
/** Conditional writes in flight at once. */
export const WRITE_CONCURRENCY = 16;
/** Below this much remaining time no new page starts: progress is saved and a continuation queued. */
export const SAFETY_MARGIN_MS = 15_000;
/** The lease outlives its holder's deadline by this much (Lambda stops the holder at its deadline). */
export const LEASE_GRACE_MS = 5_000;
/** Lease length when the deadline is unknown (no Lambda context). */
export const DEFAULT_LEASE_MS = 5 * 60_000;
/** Longest delay of a message re-queued behind another delivery's lease on the last attempt. */
export const MAX_LEASE_WAIT_SECONDS = 10;
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

export interface Delivery {
  /** Time left in this invocation (Lambda's context.getRemainingTimeInMillis), if known. */
  remainingTimeMs?: () => number;
  /** This message's receive count and the queue's maximum: the last attempt marks failure. */
  receiveCount: number;
  maxReceiveCount: number;
}

export type RunOutcome = 'completed' | 'continued' | 'deferred' | 'ignored';

/** Another delivery holds a live lease on the migration: this one retries later. */
export class LeaseHeldError extends Error {
  override readonly name = 'LeaseHeldError';
}

/** The lease expired and another delivery took over mid-run: stop without touching anything more. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/**
 * Identifies one version of a source entry in the skipped checkpoint. Versions restart after a
 * delete, so updatedAt is part of it.
 */
export const skippedKey = (entry: MarkedEntry): string =>
  JSON.stringify([entry.userId, entry.version, entry.updatedAt]);

/** DynamoDB orders sort keys by their UTF-8 bytes (not JavaScript's UTF-16 order). */
const compareKeys = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

const sameConfig = (entry: MarkedEntry, config: ChannelConfig): boolean =>
  entry.config.inbox === config.inbox && entry.config.email === config.email && entry.config.slack === config.slack;

type Outcome =
  | { kind: 'moved'; source: MarkedEntry; count: boolean }
  | { kind: 'skipped'; source: MarkedEntry; count: boolean }
  /** The target changed between read and write: the source stays and a later pass decides again. */
  | { kind: 'retry'; source: MarkedEntry };

/**
 * Performs (part of) one migration for one queue delivery. See /work/notes/migration.md for
 * the full design; in short:
 *
 * 1. Lease: a conditional update on the record makes this delivery the only one working.
 * 2. Pages: the first PAGE_SIZE source entries (always from the start: processed entries are
 *    deleted), their targets in one batch read, then per entry either `skipped` (the target is
 *    strictly newer and not this migration's own copy) or a version-conditional put of the
 *    target carrying a marker {migrationId, run, page, version}.
 * 3. Progress: counts, the page number of this run and the skipped checkpoint are saved under
 *    the lease, and only then are the source entries deleted, each only if unchanged.
 * 4. Counting is exact under crashes and redelivery: a target marker counts as counted once its
 *    run saved that page (record.runs[run] >= page); skipped entry versions are remembered in
 *    the checkpoint until they are gone from the source.
 * 5. An empty source completes the migration and releases the document locks. Near the time
 *    limit the lease is released and a continuation message queued.
 */
export const runMigration = async (deps: WorkerDeps, migrationId: string, delivery: Delivery): Promise<RunOutcome> => {
  const { repository, queue, now = () => new Date() } = deps;
  const run = (deps.newRunId ?? randomUUID)();
  const leaseUntil = () => {
    const at = now().getTime();
    return delivery.remainingTimeMs ? at + delivery.remainingTimeMs() + LEASE_GRACE_MS : at + DEFAULT_LEASE_MS;
  };

  const lastAttempt = delivery.receiveCount >= delivery.maxReceiveCount;
  /** Seconds until a lease ending at `until` has expired, as an SQS delay. */
  const delayUntil = (until: number) =>
    Math.min(MAX_DELAY_SECONDS, Math.max(1, Math.ceil((until - now().getTime()) / 1000) + 1));

  let record: MigrationRecord | undefined;
  try {
    const until = leaseUntil();
    record = await repository.acquireLease(migrationId, run, until, now());
    if (!record) {
      const current = await repository.get(migrationId);
      if (!current) {
        logger.warn('Migration message for an unknown migration: dropped', { migrationId });
        return 'ignored';
      }
      if (!isActiveStatus(current.status)) {
        logger.info('Migration already finished: duplicate message dropped', { migrationId, status: current.status });
        return 'ignored';
      }
      if (lastAttempt) {
        // The last attempt must not drop the migration behind a lease whose holder may be gone
        // (a process killed mid-run): a new message comes back once that lease has expired.
        // Short enough that a live holder's finish is noticed soon; a chain of these goes on
        // until the lease is released or has expired.
        const delaySeconds = Math.min(MAX_LEASE_WAIT_SECONDS, delayUntil(current.leaseUntil ?? 0));
        await queue.send(migrationId, delaySeconds);
        logger.warn('Migration leased by another delivery on the last attempt: re-queued', {
          migrationId,
          delaySeconds,
        });
        return 'deferred';
      }
      throw new LeaseHeldError(`Migration ${migrationId} is being processed by another delivery`);
    }
    logger.info('Migration run started', { migrationId, run, moved: record.moved, skipped: record.skipped });
    // On the last attempt, once it has shown it can make progress (a page saved), a watchdog:
    // should the function then be killed (timeout, out of memory) before it can mark anything,
    // this message resumes the migration once the lease has expired. After a normal end it
    // finds the migration finished and is dropped.
    const watchdog = lastAttempt ? () => queue.send(migrationId, delayUntil(until)) : undefined;
    return await processPages(deps, record, run, delivery, leaseUntil, watchdog);
  } catch (error) {
    // A held or lost lease means another delivery is at work: leave everything to it.
    if (error instanceof LeaseHeldError || error instanceof LeaseLostError) throw error;
    logger.error('Migration run failed', { error, migrationId, run, receiveCount: delivery.receiveCount, lastAttempt });
    if (lastAttempt) {
      const reason = `The migration failed after ${delivery.receiveCount} attempts (${(error as Error)?.name ?? 'Error'}); documents may be partly migrated. Start it again to finish.`;
      try {
        if (await repository.fail(migrationId, reason, now(), { owner: run })) {
          const current = record ?? (await repository.get(migrationId));
          if (current) await releaseLocks(repository, current);
        }
      } catch (failError) {
        logger.error('Could not mark the migration failed', { error: failError, migrationId });
      }
    } else {
      // Let the queue's retry start at once instead of waiting for the lease to expire.
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
  const runs: Record<string, number> = { ...record.runs };
  let checkpoint = new Set(record.skippedCheckpoint);
  let page = 0;
  let stalled = 0;

  for (;;) {
    // Always at least one page per run, so that a short deadline still makes progress.
    if (page > 0 && delivery.remainingTimeMs && delivery.remainingTimeMs() < safetyMarginMs) {
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
      await releaseLocks(repository, record);
      logger.info('Migration completed', { migrationId, run });
      return 'completed';
    }
    page += 1;

    const targetKeys: EntryKey[] = sources.map((source) => ({
      organizationId,
      userId: source.userId,
      documentId: newDocumentId,
    }));
    const targets = new Map((await entries.getMarkedEntries(targetKeys)).map((entry) => [entry.userId, entry]));

    const outcomes = await pMap(
      sources,
      async (source): Promise<Outcome> => {
        const target = targets.get(source.userId);
        const marker = target?.migration?.migrationId === migrationId ? target.migration : undefined;
        // Written by this migration in a page whose progress was saved: already counted.
        const counted = marker !== undefined && (runs[marker.run] ?? 0) >= marker.page;
        const ownCopy = marker !== undefined && target?.version === marker.version;
        if (target && !ownCopy && target.updatedAt > source.updatedAt) {
          return { kind: 'skipped', source, count: !checkpoint.has(skippedKey(source)) };
        }
        // Over this migration's own copy (the source was written again after its move), the
        // source's channels are applied on top, as the write would have done before the move.
        const config = ownCopy && target ? { ...target.config, ...source.config } : source.config;
        // A redelivery finds its own counted copy already there: no write needed.
        if (counted && ownCopy && target && target.updatedAt === source.updatedAt && sameConfig(target, config)) {
          return { kind: 'moved', source, count: false };
        }
        const version = (target?.version ?? 0) + 1;
        const written = await entries.putEntryIf(
          {
            ...source,
            config,
            documentId: newDocumentId,
            version,
            // A counted user keeps the marker's run and page, so that it is never counted twice.
            migration: counted && marker ? { ...marker, version } : { migrationId, run, page, version },
          },
          target ? target.version : null,
        );
        return written ? { kind: 'moved', source, count: !counted } : { kind: 'retry', source };
      },
      { concurrency },
    );

    // Skipped versions stay in the checkpoint until they are gone from the source: those of
    // this page, and older ones that sort after this page's last key (not yet seen again).
    const lastKey = (sources.at(-1) as MarkedEntry).userId;
    const full = sources.length === pageSize;
    const nextCheckpoint = new Set<string>();
    for (const key of checkpoint) {
      const [userId] = JSON.parse(key) as [string];
      if (full && compareKeys(userId, lastKey) > 0) nextCheckpoint.add(key);
    }
    for (const outcome of outcomes) if (outcome.kind === 'skipped') nextCheckpoint.add(skippedKey(outcome.source));

    const saved = await repository.saveProgress(migrationId, run, {
      movedDelta: outcomes.filter((o) => o.kind === 'moved' && o.count).length,
      skippedDelta: outcomes.filter((o) => o.kind === 'skipped' && o.count).length,
      run,
      page,
      skippedCheckpoint: [...nextCheckpoint],
      leaseUntil: leaseUntil(),
      at: now().toISOString(),
    });
    if (!saved) throw new LeaseLostError(`Lost the lease on migration ${migrationId}`);
    if (page === 1) await watchdog?.();
    runs[run] = page;
    checkpoint = nextCheckpoint;

    // Only now the sources go, each only if unchanged since it was read: a source rewritten
    // meanwhile stays and is moved by a later pass.
    const deleted = await pMap(
      outcomes.filter((o) => o.kind !== 'retry'),
      (o) => entries.deleteEntryIf(o.source, { version: o.source.version, updatedAt: o.source.updatedAt }),
      { concurrency },
    );
    stalled = deleted.some(Boolean) ? 0 : stalled + 1;
    if (stalled >= MAX_STALLED_PAGES) {
      throw new Error(`No progress on migration ${migrationId} in ${stalled} pages: its entries keep changing`);
    }
  }
};
