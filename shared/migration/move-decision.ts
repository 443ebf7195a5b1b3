import { CHANNELS, type Channel } from '#shared/api/channels.js';
import { isCounted, type SavedPages } from '#shared/jobs/step.js';
import { type CategoryLayers, type LayerChannels, layerOf } from '#shared/preferences/layers.js';
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

const sameChannels = (a: ChannelConfig, b: ChannelConfig): boolean =>
  a.inbox === b.inbox && a.email === b.email && a.slack === b.slack;

/** The same values in every layer (the all-categories one and each category's). */
const sameConfig = (entry: MarkedEntry, moved: Channels): boolean => {
  if (!sameChannels(entry.config, moved.config)) return false;
  const categories = new Set([...Object.keys(entry.categories ?? {}), ...Object.keys(moved.categories ?? {})]);
  return [...categories].every((category) =>
    sameChannels(layerOf(entry.categories, category)?.config ?? {}, layerOf(moved.categories, category)?.config ?? {}),
  );
};

type Channels = Pick<MarkedEntry, 'config' | 'channelAt' | 'categories'>;

const channelsOf = ({ config, channelAt, categories }: Channels): Channels => ({
  config,
  ...(channelAt ? { channelAt } : {}),
  ...(categories ? { categories } : {}),
});

/**
 * One layer of the source written again after its move, applied over the same layer of this
 * migration's copy channel by channel, as the writes would have done had they landed before the
 * move. A channel the source has a value or a write time for is the source's: a time without a
 * value is a channel a reset removed, so it goes at the target too. The others keep the copy's
 * value and time. A channel the copy holds with a newer time than the source's (a late write to
 * a re-created source) stays.
 */
const mergeLayer = (source: LayerChannels | undefined, copy: LayerChannels | undefined): LayerChannels => {
  const config: ChannelConfig = {};
  const channelAt: Partial<Record<Channel, string>> = {};
  for (const channel of CHANNELS) {
    const sourceAt = source?.channelAt?.[channel];
    const copyAt = copy?.channelAt?.[channel];
    const written = source?.config[channel] !== undefined || sourceAt !== undefined;
    const from = written && !(sourceAt !== undefined && copyAt !== undefined && copyAt > sourceAt) ? source : copy;
    const value = from?.config[channel];
    const at = from?.channelAt?.[channel];
    if (value !== undefined) config[channel] = value;
    if (at !== undefined) channelAt[channel] = at;
  }
  return Object.keys(channelAt).length > 0 ? { config, channelAt } : { config };
};

/** mergeLayer for every layer of the source and the copy. */
export const mergeOverCopy = (source: Channels, copy: Channels): Channels => {
  const merged = mergeLayer(source, copy);
  const categories: CategoryLayers = Object.create(null);
  for (const category of new Set([...Object.keys(source.categories ?? {}), ...Object.keys(copy.categories ?? {})])) {
    categories[category] = mergeLayer(layerOf(source.categories, category), layerOf(copy.categories, category));
  }
  return { ...merged, ...(Object.keys(categories).length > 0 ? { categories } : {}) };
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
  const { config: _config, channelAt: _channelAt, categories: _categories, ...rest } = source;
  const moved = ownCopy && target ? mergeOverCopy(source, target) : channelsOf(source);
  // A redelivery finds its own counted copy already there: no write needed.
  if (counted && ownCopy && target && target.updatedAt === source.updatedAt && sameConfig(target, moved)) {
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
