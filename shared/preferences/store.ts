import type { ChannelConfig, EntryKey, StoredEntry } from './model.js';

export interface WriteMeta {
  updatedAt: string;
  updatedBy: string;
}

/**
 * The storage port for notification config. The DynamoDB adapter implements it; the domain
 * code (and migration) only speaks to this interface.
 */
export interface PreferenceStore {
  /**
   * Sets the given channels of one entry, creating it if needed, and leaves the other
   * channels as stored. Atomic per entry, so concurrent writes of other channels are kept.
   */
  setChannels(key: EntryKey, config: ChannelConfig, meta: WriteMeta): Promise<void>;

  /** Reads entries by key; missing entries are absent from the result. */
  getEntries(keys: readonly EntryKey[]): Promise<StoredEntry[]>;
}

export const entryId = ({ organizationId, userId, documentId }: EntryKey): string =>
  JSON.stringify([organizationId, documentId, userId]);
