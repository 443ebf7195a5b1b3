import pMap from 'p-map';
import type { EntryKey } from '#shared/preferences/model.js';
import type { MarkedEntry, MigrationEntryStore } from '#shared/preferences/store.js';
import { decideMove, type MoveContext } from './move-decision.js';

/** Source entries per page: one Query and one BatchGetItem (its 100-key maximum) per page. */
export const PAGE_SIZE = 100;
/** Conditional writes in flight at once. */
export const WRITE_CONCURRENCY = 16;

/** What became of one source entry of a page. */
export type Outcome =
  | { kind: 'moved'; source: MarkedEntry; count: boolean }
  | { kind: 'skipped'; source: MarkedEntry; count: boolean }
  /** The target changed between read and write: the source stays and a later pass decides again. */
  | { kind: 'retry'; source: MarkedEntry };

export interface PageScope extends MoveContext {
  organizationId: string;
}

/** Reads the targets of a page of source entries in one batch, then decides and writes each. */
export const copyPage = async (
  entries: MigrationEntryStore,
  sources: readonly MarkedEntry[],
  scope: PageScope,
  concurrency: number,
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
          const written = await entries.putEntryIf(decision.entry, decision.expectedVersion);
          return written ? { kind: 'moved', source, count: decision.countMoved } : { kind: 'retry', source };
        }
      }
    },
    { concurrency },
  );
};

/** What a page adds to the migration's counts. */
export const pageCounts = (outcomes: readonly Outcome[]): { movedDelta: number; skippedDelta: number } => ({
  movedDelta: outcomes.filter((o) => o.kind === 'moved' && o.count).length,
  skippedDelta: outcomes.filter((o) => o.kind === 'skipped' && o.count).length,
});

export const skippedSources = (outcomes: readonly Outcome[]): MarkedEntry[] =>
  outcomes.filter((o) => o.kind === 'skipped').map((o) => o.source);

/**
 * Deletes the page's moved and skipped source entries, each only if unchanged since it was read:
 * a source rewritten meanwhile stays and is moved by a later pass. True when any was deleted.
 */
export const deleteSources = async (
  entries: MigrationEntryStore,
  outcomes: readonly Outcome[],
  concurrency: number,
): Promise<boolean> => {
  const deleted = await pMap(
    outcomes.filter((o) => o.kind !== 'retry'),
    (o) => entries.deleteEntryIf(o.source, { version: o.source.version, updatedAt: o.source.updatedAt }),
    { concurrency },
  );
  return deleted.some(Boolean);
};
