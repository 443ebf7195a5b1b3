import type { HistoryStore } from '#shared/history/store.js';
import type { Delivery, RunOutcome } from '#shared/jobs/delivery-policy.js';
import type { RunDeps } from '#shared/jobs/pages.js';
import { runJob } from '#shared/jobs/run.js';
import { isCounted, type JobStep, type PageResult } from '#shared/jobs/step.js';
import type { LinkRevoker } from '#shared/links/revocation.js';
import { type ChangeAttribution, erasureActor } from '#shared/preferences/change-attribution.js';
import type { ErasureEntryStore, MarkedEntry } from '#shared/preferences/store.js';
import { entryId } from '#shared/preferences/store.js';
import { isTombstone } from '#shared/preferences/tombstone.js';
import { erasureJob } from './kind.js';
import type { DynamoLastErasure } from './last-erasure.js';
import type { ErasureRecord } from './model.js';

/** Keys per page: one Query of the user index, one BatchGetItem, its stamps and deletes in PartiQL batches of 25. */
export const ERASURE_PAGE_SIZE = 100;
/** Passes over the user's entries that each still found some (written again meanwhile) before the run gives up. */
export const MAX_PASSES = 10;

export interface ErasureWorkerDeps extends RunDeps<ErasureRecord> {
  entries: ErasureEntryStore;
  history: Pick<HistoryStore, 'deleteUserHistory'>;
  /** Revokes the user's links in emails (shared/links/revocation.ts): an erasure ends every link made before it. */
  links?: LinkRevoker;
  /** Names this erasure the user's last (last-erasure.ts): their export is its record alone. */
  last?: Pick<DynamoLastErasure, 'mark'>;
  pageSize?: number;
}

const EMPTY: PageResult = { outcome: 'empty' };

/**
 * An erasure's pages under the engine's lease (docs/design.md, User erasure): each page of the
 * user's entries stamped, counted, then deleted; passes over the user index until one finds
 * nothing, then the user's history goes. The user's links are revoked when each run starts and
 * again at the end, so that a link made meanwhile is revoked too.
 */
export const eraseStep: JobStep<ErasureRecord, ErasureWorkerDeps> = (deps, { record, run, savedPages, now }) => {
  const { entries, history, pageSize = ERASURE_PAGE_SIZE } = deps;
  const { erasureId, organizationId, userId } = record;
  let startKey: Record<string, string> | undefined;
  let foundInPass = false;
  /** Entries this run deleted: the index, eventually consistent, may list them a moment longer. */
  const deleted = new Set<string>();
  let passEnded = false;
  let passes = 0;
  /** The end of a pass that found entries: another one follows, up to MAX_PASSES. */
  const nextPass = () => {
    passes += 1;
    if (passes >= MAX_PASSES) {
      throw new Error(`Erasure ${erasureId}: the user's entries were still changing after ${passes} passes`);
    }
    foundInPass = false;
    passEnded = false;
  };

  let revoked = false;

  return async (page) => {
    if (!revoked) {
      await deps.links?.revoke(organizationId, [userId], now());
      revoked = true;
    }
    if (passEnded) nextPass();
    const listed = await entries.listUserEntries(organizationId, userId, pageSize, startKey);
    const found = listed.keys.length ? await entries.getMarkedEntries(listed.keys) : [];
    startKey = listed.lastKey;
    // A listed entry gone by the time it is read, not by this run's hand, was deleted by someone
    // else meanwhile: a migration moving it to another document (its copy written just before,
    // perhaps after this pass's listing) or a reset. The pass is not the last: the next one
    // finds where it went.
    const present = new Set(found.map(entryId));
    if (listed.keys.some((key) => !present.has(entryId(key)) && !deleted.has(entryId(key)))) foundInPass = true;
    if (found.length === 0) {
      if (startKey) return EMPTY;
      // The end of a pass over the index: one that found nothing means the user has no entry left.
      if (!foundInPass) {
        await deps.links?.revoke(organizationId, [userId], now());
        await history.deleteUserHistory(organizationId, userId);
        await deps.last?.mark(organizationId, userId, erasureId, now());
        return { outcome: 'done' };
      }
      nextPass();
      return EMPTY;
    }
    foundInPass = true;
    passEnded = startKey === undefined;
    const change: ChangeAttribution = {
      cause: 'erasure',
      changedBy: erasureActor(erasureId),
      changedAt: now().toISOString(),
    };
    const counted = (entry: MarkedEntry) =>
      entry.erasure?.erasureId === erasureId && isCounted(savedPages, entry.erasure);
    // Entries already counted keep their marker; the others get this page's.
    const again = found.filter(counted);
    const fresh = found.filter((entry) => !counted(entry));
    const stamped = new Set(
      [
        ...(await entries.stampForDelete(again, change)),
        ...(await entries.stampForDelete(fresh, change, { erasureId, run, page })),
      ].map(entryId),
    );
    return {
      outcome: 'page',
      counts: { erased: fresh.filter((entry) => stamped.has(entryId(entry)) && !isTombstone(entry)).length },
      saved: async () => {
        const gone = await entries.deleteEntriesIf(
          found.filter((entry) => stamped.has(entryId(entry))),
          change,
        );
        for (const entry of gone) deleted.add(entryId(entry));
      },
    };
  };
};

/** Performs (part of) one erasure for one queue delivery: the engine's run with the erase step. */
export const runErasure = (deps: ErasureWorkerDeps, erasureId: string, delivery: Delivery): Promise<RunOutcome> =>
  runJob(erasureJob, eraseStep, deps, erasureId, delivery);
