import type { ChannelConfig } from '#shared/preferences/model.js';
import type { ExpectedVersion, MarkedEntry } from '#shared/preferences/store.js';
import { skippedKey } from './skipped-checkpoint.js';

/** What deciding one entry needs to know about the migration and the page being processed. */
export interface MoveContext {
  migrationId: string;
  newDocumentId: string;
  /** This delivery's run and the page number within it: the marker a new copy carries. */
  run: string;
  page: number;
  /** Per run, the last page whose progress was saved (the record's runs): a marker is counted once its page is. */
  savedPages: Readonly<Record<string, number>>;
  /** The skipped checkpoint (see skippedKey): source entry versions already counted as skipped. */
  checkpoint: ReadonlySet<string>;
}

export type MoveDecision =
  /** The target is strictly newer and not this migration's own copy: it stays, the source entry is discarded. */
  | { action: 'skip'; countSkipped: boolean }
  /** The target already is this migration's counted copy of this very entry: nothing to write, nothing to count. */
  | { action: 'keep' }
  /**
   * Write `entry` to the target if it still has `expectedVersion` (null: still absent). Once
   * written it is moved, and counted if `countMoved`; if not written, the target changed
   * meanwhile and a later pass decides again.
   */
  | { action: 'write'; entry: MarkedEntry; expectedVersion: ExpectedVersion; countMoved: boolean };

const sameConfig = (entry: MarkedEntry, config: ChannelConfig): boolean =>
  entry.config.inbox === config.inbox && entry.config.email === config.email && entry.config.slack === config.slack;

/**
 * The move rule for one user: the more recently updated entry wins, equal times go to the
 * source. `target` is the user's entry in the new document as just read, if any.
 */
export const decideMove = (
  source: MarkedEntry,
  target: MarkedEntry | undefined,
  context: MoveContext,
): MoveDecision => {
  const { migrationId, newDocumentId, run, page, savedPages, checkpoint } = context;
  const marker = target?.migration?.migrationId === migrationId ? target.migration : undefined;
  // Written by this migration in a page whose progress was saved: already counted.
  const counted = marker !== undefined && (savedPages[marker.run] ?? 0) >= marker.page;
  // This migration's copy, unchanged since: not a newer entry of the user's, whatever its time.
  const ownCopy = marker !== undefined && target?.version === marker.version;
  if (target && !ownCopy && target.updatedAt > source.updatedAt) {
    return { action: 'skip', countSkipped: !checkpoint.has(skippedKey(source)) };
  }
  // Over this migration's own copy (the source was written again after its move), the
  // source's channels are applied on top, as the write would have done before the move.
  const config = ownCopy && target ? { ...target.config, ...source.config } : source.config;
  // A redelivery finds its own counted copy already there: no write needed.
  if (counted && ownCopy && target && target.updatedAt === source.updatedAt && sameConfig(target, config)) {
    return { action: 'keep' };
  }
  const version = (target?.version ?? 0) + 1;
  return {
    action: 'write',
    entry: {
      ...source,
      config,
      documentId: newDocumentId,
      version,
      // A counted user keeps the marker's run and page, so that it is never counted twice.
      migration: counted && marker ? { ...marker, version } : { migrationId, run, page, version },
    },
    expectedVersion: target ? target.version : null,
    countMoved: !counted,
  };
};
