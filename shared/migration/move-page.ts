import pMap from 'p-map';
import type { ChangeAttribution } from '#shared/preferences/change-attribution.js';
import type { EntryKey } from '#shared/preferences/model.js';
import { entryId, type MarkedEntry } from '#shared/preferences/store.js';
import type { MigrationEntries } from './copies.js';
import { decideMove, type MoveContext } from './move-decision.js';

/** Source entries per page: one Query and one BatchGetItem (its 100-key maximum) per page. */
export const PAGE_SIZE = 100;

/** What became of one source entry of a page. */
export type Outcome =
  /** `stamped`: its copy was written, and the source stamped for its delete with it (copies.ts). */
  | { kind: 'moved'; source: MarkedEntry; count: boolean; stamped?: true }
  | { kind: 'skipped'; source: MarkedEntry; count: boolean }
  /** The target or the source changed between read and write: the source stays and a later pass decides again. */
  | { kind: 'retry'; source: MarkedEntry };

export interface PageScope extends MoveContext {
  organizationId: string;
}

/**
 * Reads the targets of a page of source entries in one batch, then decides and writes each, a
 * copy only while its source is unchanged (copies.ts); `change` attributes the writes to the
 * migration (change-attribution.ts).
 */
export const copyPage = async (
  entries: MigrationEntries,
  sources: readonly MarkedEntry[],
  scope: PageScope,
  concurrency: number,
  change: ChangeAttribution,
): Promise<Outcome[]> => {
  const targetKeys: EntryKey[] = sources.map((source) => ({
    organizationId: scope.organizationId,
    userId: source.userId,
    documentId: scope.newDocumentId,
  }));
  const targets = new Map((await entries.getMarkedEntries(targetKeys)).map((entry) => [entry.userId, entry]));
  return pMap(
    sources,
    async (source): Promise<Outcome> => {
      const decision = decideMove(source, targets.get(source.userId), scope);
      switch (decision.action) {
        case 'skip':
          return { kind: 'skipped', source, count: decision.countSkipped };
        case 'keep':
        case 'drop':
          return { kind: 'moved', source, count: false };
        case 'write': {
          // Only while the source is as read: once an erasure has deleted it, no copy can bring it back.
          const written = await entries.copyEntryIf(decision.entry, decision.expectedVersion, source, change);
          return written
            ? { kind: 'moved', source, count: decision.countMoved, stamped: true }
            : { kind: 'retry', source };
        }
      }
    },
    { concurrency },
  );
};

/** What a page adds to the migration's counters. */
export const pageCounts = (outcomes: readonly Outcome[]): { moved: number; skipped: number } => ({
  moved: outcomes.filter((o) => o.kind === 'moved' && o.count).length,
  skipped: outcomes.filter((o) => o.kind === 'skipped' && o.count).length,
});

export const skippedSources = (outcomes: readonly Outcome[]): MarkedEntry[] =>
  outcomes.filter((o) => o.kind === 'skipped').map((o) => o.source);

/**
 * Deletes the page's moved and skipped source entries, each only if unchanged since it was read:
 * a source rewritten meanwhile stays and is moved by a later pass. They are first stamped with
 * the migration's attribution, which the change stream's record of each delete then carries:
 * those whose copy was written got the stamp with it, the others get it here; the deletes go
 * 25 to a request. True when any was deleted.
 */
export const deleteSources = async (
  entries: MigrationEntries,
  outcomes: readonly Outcome[],
  change: ChangeAttribution,
): Promise<boolean> => {
  const done = outcomes.filter((o) => o.kind !== 'retry');
  const withCopy = done.filter((o) => o.kind === 'moved' && o.stamped).map((o) => o.source);
  const toStamp = done.filter((o) => !(o.kind === 'moved' && o.stamped)).map((o) => o.source);
  const stamped = new Set(
    [...withCopy, ...(toStamp.length > 0 ? await entries.stampForDelete(toStamp, change) : [])].map(entryId),
  );
  const deleted = await entries.deleteEntriesIf(
    done.map((o) => o.source).filter((source) => stamped.has(entryId(source))),
    change,
  );
  return deleted.length > 0;
};
