import type { Channel } from '#shared/api/channels.js';
import type { Evidence } from '#shared/consent/evidence.js';
import type { StoredPolicy } from '#shared/policy/model.js';
import type { Schedule } from '#shared/schedules/schema.js';
import type { ChangeAttribution } from './change-attribution.js';
import { MAX_CATEGORY_LAYERS } from './layers.js';
import type { ChannelConfig, EntryKey, StoredEntry } from './model.js';

export interface WriteMeta {
  /**
   * The request's start time: it stamps every channel the write touches, and a channel whose
   * stored stamp is newer is left alone. The entry's `updatedAt` only moves forward.
   */
  updatedAt: string;
  updatedBy: string;
  /**
   * Why, for the history: `link` when a person changed it from a link in an email; by default
   * `set` for a write and `reset` for a removal.
   */
  cause?: 'link' | 'import' | undefined;
  /** The layer written: a category's (layers.ts), or the all-categories one when absent. */
  category?: string | undefined;
  /** How the change was made, written with it (shared/consent/evidence.ts); absent: what the cause implies. */
  evidence?: Evidence | undefined;
}

/** Per call: the request's abort signal (fired at its deadline). */
export interface CallOptions {
  signal?: AbortSignal | undefined;
}

/** The two layers that resolve a user's config on one document. */
export interface UserLayers {
  document?: StoredEntry | undefined;
  organization?: StoredEntry | undefined;
}

/**
 * The storage port for notification config (the DynamoDB adapter: dynamo-store.ts). Each write
 * is of one entry and stands alone: a request of many entries is many such writes, some of which
 * may fail while others succeed (the request then answers which, entry-writes.ts).
 */
export interface PreferenceStore {
  /**
   * Sets the given channels of one entry's layer (`meta.category`'s, or the all-categories one),
   * creating it (or reviving a tombstone) if needed, and leaves the other channels as stored.
   * Atomic per entry (one conditional update), so concurrent writes of other channels are kept.
   * Throws CategoryLayersFull when it would add a category layer beyond MAX_CATEGORY_LAYERS.
   */
  setChannels(key: EntryKey, config: ChannelConfig, meta: WriteMeta, options?: CallOptions): Promise<void>;

  /**
   * Removes the given channels of one entry's layer (never creating it), keeping their write
   * times. An entry left with no channel in any layer is deleted at the organization level, and at the document level
   * kept as a tombstone (tombstone.ts) that readers never see. Channels stamped newer than
   * `meta.updatedAt` are kept.
   */
  resetChannels(key: EntryKey, channels: readonly Channel[], meta: WriteMeta, options?: CallOptions): Promise<void>;

  /** Reads entries by key; missing entries (and tombstones) are absent from the result. */
  getEntries(keys: readonly EntryKey[]): Promise<StoredEntry[]>;

  /**
   * The document entry and the organization entry of each user (keyed by user id), read in
   * batches issued concurrently.
   */
  getUserLayers(
    organizationId: string,
    documentId: string,
    userIds: readonly string[],
  ): Promise<Map<string, UserLayers>>;

  /** getEntries, with the organization's policy read in the same batched call (the first). */
  getEntriesWithPolicy(keys: readonly EntryKey[], organizationId: string): Promise<WithPolicy<StoredEntry[]>>;

  /** getUserLayers, with the organization's policy read in the same batched call (the first). */
  getUserLayersWithPolicy(
    organizationId: string,
    documentId: string,
    userIds: readonly string[],
  ): Promise<WithPolicy<Map<string, UserLayers>>>;
}

/** What a read returned, and the organization's policy it read along. */
export interface WithPolicy<T> {
  read: T;
  policy: StoredPolicy;
}

/** A set that would give an entry one category layer more than MAX_CATEGORY_LAYERS. */
export class CategoryLayersFull extends Error {
  override readonly name = 'CategoryLayersFull';
  constructor(readonly key: EntryKey) {
    super(`The entry already holds ${MAX_CATEGORY_LAYERS} category layers`);
  }
}

/** The schedules of users, kept on their organization-level entries (docs/design.md, Schedules). */
export interface ScheduleStore extends Pick<PreferenceStore, 'getEntries'> {
  /**
   * Replaces the user's schedule on the organization-level entry `key` (creating it), or with
   * null removes it (an entry left with nothing is deleted). A write stamped older than the
   * stored schedule's time changes nothing.
   */
  setSchedule(key: EntryKey, schedule: Schedule | null, meta: WriteMeta, options?: CallOptions): Promise<void>;
}

export const entryId = ({ organizationId, userId, documentId }: EntryKey): string =>
  JSON.stringify([organizationId, documentId, userId]);

/** Which migration copied an entry to where it is: its id, the run and page that did it, the version written. */
export interface MigrationMarker {
  migrationId: string;
  run: string;
  page: number;
  version: number;
}

/** Which erasure stamped an entry for deletion, in which run and page (so that it is counted once). */
export interface ErasureMarker {
  erasureId: string;
  run: string;
  page: number;
}

/** An entry as document migration and erasure see it: with the markers they left on it, if any. */
export interface MarkedEntry extends StoredEntry {
  migration?: MigrationMarker;
  erasure?: ErasureMarker;
}

/** Condition of a conditional write: the entry is absent (null) or still has this version. */
export type ExpectedVersion = number | null;

/**
 * The operations document migration needs on top of the port above (kept apart so that the
 * request handlers' dependencies stay small).
 */
export interface MigrationEntryStore {
  /**
   * The first `limit` document-level entries of one document, in key (user id, UTF-8 byte)
   * order, read consistently, tombstones included. Organization-level entries are never included.
   */
  listDocumentEntries(organizationId: string, documentId: string, limit: number): Promise<MarkedEntry[]>;

  /** Reads entries by key with their migration markers, tombstones included; missing entries are absent. */
  getMarkedEntries(keys: readonly EntryKey[]): Promise<MarkedEntry[]>;

  /**
   * Writes the whole entry (replacing what is there) if the stored one still has the expected
   * version (or is absent, for null); an entry with no channel is written as a tombstone.
   * `change` says who wrote it (the migration). Returns false when the condition did not hold.
   */
  putEntryIf(entry: MarkedEntry, expected: ExpectedVersion, change: ChangeAttribution): Promise<boolean>;

  /**
   * Stamps entries about to be deleted with the delete's attribution (change-attribution.ts),
   * each only if unchanged since it was read; each stamp stands alone. Answers the stamped ones.
   */
  stampForDelete(
    entries: readonly UnchangedEntry[],
    change: ChangeAttribution,
    marker?: ErasureMarker,
  ): Promise<EntryKey[]>;

  /**
   * Deletes an entry if it is unchanged (same version and updatedAt; versions restart after a
   * delete, so the time tells a re-created entry apart) and still bears the stamp of `change`
   * (stampForDelete), which the change stream's record of the delete then shows. Returns false
   * when it was changed or gone.
   */
  deleteEntryIf(key: EntryKey, unchanged: Unchanged, change: ChangeAttribution): Promise<boolean>;

  /** deleteEntryIf of each entry, each delete standing alone. Answers the deleted ones. */
  deleteEntriesIf(entries: readonly UnchangedEntry[], change: ChangeAttribution): Promise<EntryKey[]>;
}

/** What an entry must still have for a conditional delete. */
export interface Unchanged {
  version: number;
  updatedAt: string;
}

export type UnchangedEntry = EntryKey & Unchanged;

/** A page of a user's entry keys in one organization, and where the next page starts. */
export interface UserEntryPage {
  keys: EntryKey[];
  lastKey?: Record<string, string>;
}

/** What user erasure needs on top of the stamped delete of MigrationEntryStore. */
export interface ErasureEntryStore
  extends Pick<MigrationEntryStore, 'getMarkedEntries' | 'stampForDelete' | 'deleteEntriesIf'> {
  /**
   * The keys of a user's entries in an organization (documents and the organization level,
   * tombstones included), from the user index: `limit` per page, from `startKey` on. The index
   * is eventually consistent: an entry written a moment ago may be missing, one just deleted present.
   */
  listUserEntries(
    organizationId: string,
    userId: string,
    limit: number,
    startKey?: Record<string, string>,
  ): Promise<UserEntryPage>;
}
