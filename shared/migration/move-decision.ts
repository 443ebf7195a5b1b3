import { CHANNELS, type Channel } from '#shared/api/channels.js';
import { isCounted, type SavedPages } from '#shared/jobs/step.js';
import type { ChannelConfig } from '#shared/preferences/model.js';
import type { ExpectedVersion, MarkedEntry } from '#shared/preferences/store.js';
import { isTombstone } from '#shared/preferences/tombstone.js';
import { skippedKey } from './skipped-checkpoint.js';

/** What deciding one entry needs to know about the migration and the page being processed. */
export interface MoveContext {
  migrationId: string;
  newDocumentId: string;
  /** This delivery's run and the page number within it: the marker a new copy carries. */
  run: string;
  page: number;
  /** Per run, the last page whose progress was saved (the record's runs): a marker is counted once its page is. */
  savedPages: SavedPages;
  /** The skipped checkpoint (see skippedKey): source entry versions already counted as skipped. */
  checkpoint: ReadonlySet<string>;
}

export type MoveDecision =
  /** The target is strictly newer and not this migration's own copy: it stays, the source entry is discarded. */
  | { action: 'skip'; countSkipped: boolean }
  /** The target already is this migration's counted copy of this very entry: nothing to write, nothing to count. */
  | { action: 'keep' }
  /** The source is a tombstone with no copy of this migration's to reset: nothing to write or count, the source is discarded. */
  | { action: 'drop' }
  /**
   * Write `entry` to the target if it still has `expectedVersion` (null: still absent). Once
   * written it is moved, and counted if `countMoved`; if not written, the target changed
   * meanwhile and a later pass decides again.
   */
  | { action: 'write'; entry: MarkedEntry; expectedVersion: ExpectedVersion; countMoved: boolean };

const sameConfig = (entry: MarkedEntry, config: ChannelConfig): boolean =>
  entry.config.inbox === config.inbox && entry.config.email === config.email && entry.config.slack === config.slack;

type Channels = Pick<MarkedEntry, 'config' | 'channelAt'>;

const channelsOf = ({ config, channelAt }: Channels): Channels => (channelAt ? { config, channelAt } : { config });

/**
 * The source written again after its move, applied over this migration's copy channel by
 * channel, as the writes would have done had they landed before the move. A channel the source
 * has a value or a write time for is the source's: a time without a value is a channel a reset
 * removed, so it goes at the target too. The others keep the copy's value and time. A channel
 * the copy holds with a newer time than the source's (a late write to a re-created source) stays.
 */
export const mergeOverCopy = (source: Channels, copy: Channels): Channels => {
  const config: ChannelConfig = {};
  const channelAt: Partial<Record<Channel, string>> = {};
  for (const channel of CHANNELS) {
    const sourceAt = source.channelAt?.[channel];
    const copyAt = copy.channelAt?.[channel];
    const written = source.config[channel] !== undefined || sourceAt !== undefined;
    const from = written && !(sourceAt !== undefined && copyAt !== undefined && copyAt > sourceAt) ? source : copy;
    const value = from.config[channel];
    const at = from.channelAt?.[channel];
    if (value !== undefined) config[channel] = value;
    if (at !== undefined) channelAt[channel] = at;
  }
  return Object.keys(channelAt).length > 0 ? { config, channelAt } : { config };
};

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
  const counted = marker !== undefined && isCounted(savedPages, marker);
  // This migration's copy, unchanged since: not a newer entry of the user's, whatever its time.
  const ownCopy = marker !== undefined && target?.version === marker.version;
  // A tombstone (an entry a reset emptied) is no entry, except to the copy this migration made
  // before the reset: that copy loses the channels the reset removed (below).
  if (isTombstone(source) && !ownCopy) return { action: 'drop' };
  if (target && !ownCopy && !isTombstone(target) && target.updatedAt > source.updatedAt) {
    return { action: 'skip', countSkipped: !checkpoint.has(skippedKey(source)) };
  }
  // Over this migration's own copy (the source was written or reset again after its move), the
  // source's channels are applied on top. What is left may have no channel: a tombstone.
  const { config: _config, channelAt: _channelAt, ...rest } = source;
  const moved = ownCopy && target ? mergeOverCopy(source, target) : channelsOf(source);
  // A redelivery finds its own counted copy already there: no write needed.
  if (counted && ownCopy && target && target.updatedAt === source.updatedAt && sameConfig(target, moved.config)) {
    return { action: 'keep' };
  }
  const version = (target?.version ?? 0) + 1;
  return {
    action: 'write',
    entry: {
      ...rest,
      ...moved,
      documentId: newDocumentId,
      version,
      // A counted user keeps the marker's run and page, so that it is never counted twice.
      migration: counted && marker ? { ...marker, version } : { migrationId, run, page, version },
    },
    expectedVersion: target ? target.version : null,
    countMoved: !counted,
  };
};
