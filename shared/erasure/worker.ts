import { randomUUID } from 'node:crypto';
import pMap from 'p-map';
import type { HistoryStore } from '#shared/history/store.js';
import {
  type Delivery,
  delayUntil,
  isLastAttempt,
  leaseEnd,
  SAFETY_MARGIN_MS,
  timeToContinue,
} from '#shared/jobs/delivery-policy.js';
import { logger } from '#shared/platform/logger.js';
import { type ChangeAttribution, erasureActor } from '#shared/preferences/change-attribution.js';
import type { EntryKey } from '#shared/preferences/model.js';
import type { ErasureEntryStore, MarkedEntry } from '#shared/preferences/store.js';
import { entryId } from '#shared/preferences/store.js';
import { isTombstone } from '#shared/preferences/tombstone.js';
import { type ErasureRecord, isActiveErasure } from './model.js';
import type { ErasureQueue } from './queue.js';
import type { ErasureRepository } from './repository.js';

/** Keys per page: one Query of the user index, one BatchGetItem, one stamping transaction. */
export const ERASURE_PAGE_SIZE = 100;
export const DELETE_CONCURRENCY = 16;
/** Passes over the user's entries that each still found some (written again meanwhile) before the run gives up. */
export const MAX_PASSES = 10;

export interface ErasureWorkerDeps {
  entries: ErasureEntryStore;
  history: Pick<HistoryStore, 'deleteUserHistory'>;
  repository: ErasureRepository;
  queue: ErasureQueue;
  now?: () => Date;
  pageSize?: number;
  concurrency?: number;
  safetyMarginMs?: number;
  newRunId?: () => string;
}

export type ErasureOutcome = 'completed' | 'continued' | 'deferred' | 'ignored';

class ErasureLeaseHeld extends Error {
  override readonly name = 'ErasureLeaseHeld';
}
class ErasureLeaseLost extends Error {
  override readonly name = 'ErasureLeaseLost';
}

/**
 * Performs (part of) one erasure for one queue delivery (docs/design.md, "User erasure"):
 *
 * 1. Lease: a conditional update on the record makes this delivery the only one working.
 * 2. Pages of the user's entries from the user index (never a Scan), read again consistently;
 *    each entry is stamped (cause erasure, and a marker of this run and page) only if unchanged,
 *    the page's count saved under the lease, then each stamped entry deleted while the stamp is
 *    its last write. An entry stamped in a page whose count was saved is never counted again,
 *    so a redelivery or a crash at any point ends with the same count.
 * 3. Passes over the index until one finds nothing: an entry written during the erasure is
 *    erased too. Then the user's history in the organization is deleted and the erasure completes.
 */
export const runErasure = async (
  deps: ErasureWorkerDeps,
  erasureId: string,
  delivery: Delivery,
): Promise<ErasureOutcome> => {
  const { repository, queue, now = () => new Date() } = deps;
  const run = (deps.newRunId ?? randomUUID)();
  const leaseUntil = () => leaseEnd(now().getTime(), delivery.remainingTimeMs?.());
  let record: ErasureRecord | undefined;
  try {
    const until = leaseUntil();
    record = await repository.acquireLease(erasureId, run, until, now());
    if (!record) {
      const current = await repository.get(erasureId);
      if (!current || !isActiveErasure(current.status)) {
        // A run that finished but died before it freed the user leaves its lock.
        if (current) await repository.releaseLock(current.organizationId, current.userId, erasureId);
        logger.info('Erasure unknown or finished: message dropped', { erasureId, status: current?.status });
        return 'ignored';
      }
      if (isLastAttempt(delivery)) {
        // Not dropped behind a lease whose holder may be gone: back once it has expired.
        await queue.send(erasureId, delayUntil(current.leaseUntil ?? 0, now().getTime()));
        return 'deferred';
      }
      throw new ErasureLeaseHeld(`Erasure ${erasureId} is being processed by another delivery`);
    }
    return await erase(deps, record, run, delivery, leaseUntil);
  } catch (error) {
    if (error instanceof ErasureLeaseHeld || error instanceof ErasureLeaseLost) throw error;
    logger.error('Erasure run failed', { error, erasureId, run, receiveCount: delivery.receiveCount });
    if (isLastAttempt(delivery)) {
      const reason = `The erasure failed after ${delivery.receiveCount} attempts (${(error as Error)?.name ?? 'Error'}); start it again to finish.`;
      try {
        if (await repository.fail(erasureId, reason, now(), { owner: run })) {
          const current = record ?? (await repository.get(erasureId));
          if (current) await repository.releaseLock(current.organizationId, current.userId, erasureId);
        }
      } catch (failError) {
        logger.error('Could not mark the erasure failed', { error: failError, erasureId });
      }
    } else {
      await repository.releaseLease(erasureId, run).catch(() => undefined);
    }
    throw error;
  }
};

const erase = async (
  deps: ErasureWorkerDeps,
  record: ErasureRecord,
  run: string,
  delivery: Delivery,
  leaseUntil: () => number,
): Promise<ErasureOutcome> => {
  const {
    entries,
    history,
    repository,
    queue,
    now = () => new Date(),
    pageSize = ERASURE_PAGE_SIZE,
    concurrency = DELETE_CONCURRENCY,
    safetyMarginMs = SAFETY_MARGIN_MS,
  } = deps;
  const { erasureId, organizationId, userId } = record;
  const savedPages: Record<string, number> = { ...record.runs };
  let page = 0;
  let passes = 0;
  let startKey: Record<string, string> | undefined;
  let foundInPass = false;

  for (;;) {
    if (timeToContinue(delivery, page, safetyMarginMs)) {
      await repository.releaseLease(erasureId, run);
      await queue.send(erasureId);
      logger.info('Erasure continues in a new message', { erasureId, run, pages: page });
      return 'continued';
    }
    const listed = await entries.listUserEntries(organizationId, userId, pageSize, startKey);
    const found = listed.keys.length ? await entries.getMarkedEntries(listed.keys) : [];
    if (found.length > 0) {
      foundInPass = true;
      page += 1;
      const change: ChangeAttribution = {
        cause: 'erasure',
        changedBy: erasureActor(erasureId),
        changedAt: now().toISOString(),
      };
      const counted = (entry: MarkedEntry) =>
        entry.erasure?.erasureId === erasureId && (savedPages[entry.erasure.run] ?? 0) >= entry.erasure.page;
      // Entries already counted keep their marker; the others get this page's.
      const again = found.filter(counted);
      const fresh = found.filter((entry) => !counted(entry));
      const stamped = new Set(
        [
          ...(await entries.stampForDelete(again, change)),
          ...(await entries.stampForDelete(fresh, change, { erasureId, run, page })),
        ].map(entryId),
      );
      const erasedDelta = fresh.filter((entry) => stamped.has(entryId(entry)) && !isTombstone(entry)).length;
      const saved = await repository.saveProgress(erasureId, run, {
        erasedDelta,
        run,
        page,
        leaseUntil: leaseUntil(),
        at: now().toISOString(),
      });
      if (!saved) throw new ErasureLeaseLost(`Lost the lease on erasure ${erasureId}`);
      savedPages[run] = page;
      await pMap(
        found.filter((entry) => stamped.has(entryId(entry))),
        (entry) =>
          entries.deleteEntryIf(entry as EntryKey, { version: entry.version, updatedAt: entry.updatedAt }, change),
        { concurrency },
      );
    }
    startKey = listed.lastKey;
    if (startKey) continue;

    // The end of a pass over the index: one that found nothing means the user has no entry left.
    if (!foundInPass) break;
    passes += 1;
    if (passes >= MAX_PASSES) {
      throw new Error(`Erasure ${erasureId}: the user's entries were still changing after ${passes} passes`);
    }
    foundInPass = false;
  }

  await history.deleteUserHistory(organizationId, userId);
  if (!(await repository.complete(erasureId, run, now().toISOString()))) {
    throw new ErasureLeaseLost(`Lost the lease on erasure ${erasureId}`);
  }
  await repository.releaseLock(organizationId, userId, erasureId);
  logger.info('Erasure completed', { erasureId, run });
  return 'completed';
};
