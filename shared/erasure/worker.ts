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
  pageSize?: number;
}

const EMPTY: PageResult = { outcome: 'empty' };

/**
 * An erasure's pages (docs/design.md, "User erasure"), under the engine's lease: pages of the
 * user's entries from the user index (never a Scan), read again consistently; each entry is
 * stamped (cause erasure, and a marker of this run and page) only if unchanged, the page's count
 * saved by the engine, then each stamped entry deleted while the stamp is its last write. An
 * entry stamped in a page whose count was saved is never counted again, so a redelivery or a
 * crash at any point ends with the same count. Passes over the index until one finds nothing
 * (an entry written during the erasure is erased too); then the user's history in the
 * organization goes, and the erasure completes.
 *
 * The user's links in emails are revoked when each run starts (a link no longer changes anything
 * while the entries are being erased) and again at the end (a link made meanwhile is revoked
 * too): the revocation holds a keyed hash, no identifier, and expires with the longest link life.
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
