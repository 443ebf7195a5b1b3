import { type CategoryLayers, hasValue } from './layers.js';
import type { ChannelConfig } from './model.js';

/*
 * A document-level entry emptied by config/reset is not deleted but kept as a tombstone: no
 * channel value, but the channel write times and `updatedAt` of the reset. Reads treat it as no
 * entry. It exists for document migration (docs/design.md, "Resets during a migration"): a
 * migration that already copied the entry learns from it that the reset removed those channels,
 * which a deleted entry could not tell. DynamoDB removes it some time after it expires.
 */

/** The config table's TTL attribute (epoch seconds): set only on tombstones, removed by any set. */
export const TOMBSTONE_TTL_ATTRIBUTE = 'tombstoneExpiresAt';

/** Far longer than any migration runs (minutes), short enough not to pile up. */
export const TOMBSTONE_LIFETIME_SECONDS = 7 * 24 * 60 * 60;

/** When a tombstone last changed at `updatedAt` (ISO-8601) expires, in epoch seconds. */
export const tombstoneExpiry = (updatedAt: string): number =>
  Math.floor(Date.parse(updatedAt) / 1000) + TOMBSTONE_LIFETIME_SECONDS;

/** An entry with no channel value in any layer: a tombstone (as stored), or the result of merging one. */
export const isTombstone = (entry: { config: ChannelConfig; categories?: CategoryLayers | undefined }): boolean =>
  !hasValue(entry.config) && Object.values(entry.categories ?? {}).every((layer) => !hasValue(layer.config));
