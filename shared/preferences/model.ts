import type { Channel, DeliverySetting } from '#shared/api/channels.js';
import type { Schedule } from '#shared/schedules/schema.js';

/** A stored config: only the channels that were ever set. */
export type ChannelConfig = Partial<Record<Channel, DeliverySetting>>;

/** One layer of an entry (layers.ts): its channels and their write times. */
export interface LayerChannels {
  config: ChannelConfig;
  channelAt?: Partial<Record<Channel, string>>;
}

/** The category layers of an entry, by category id (an object without prototype: ids like `constructor` are plain keys). */
export type CategoryLayers = Record<string, LayerChannels>;

export type Scope = 'document' | 'organization';

/** Identifies one stored entry: a document-level one, or the organization-level one (documentId null). */
export interface EntryKey {
  organizationId: string;
  userId: string;
  documentId: string | null;
}

export interface StoredEntry extends EntryKey {
  scope: Scope;
  config: ChannelConfig;
  /** ISO-8601 time of the last write. */
  updatedAt: string;
  /** apiKey of the credential that made the last write (a migration keeps the source entry's). */
  updatedBy: string;
  /** Incremented on every write; conditional deletes compare it. */
  version: number;
  /**
   * Per channel, the time of the request that last wrote (set or reset) it: a write stamped
   * older than this does not replace it (a late write never undoes a newer one). Absent for
   * channels never written with a time (entries stored before these times existed).
   */
  channelAt?: Partial<Record<Channel, string>>;
  /** The entry's category layers (layers.ts), absent when it has none. `config` is the all-categories layer. */
  categories?: CategoryLayers;
  /** The user's delivery schedule in the organization: only on the organization-level entry (schedule.ts). */
  schedule?: Schedule;
  /** The time of the request that last wrote (or removed) the schedule. */
  scheduleAt?: string;
}

export const scopeOf = (documentId: string | null): Scope => (documentId === null ? 'organization' : 'document');
