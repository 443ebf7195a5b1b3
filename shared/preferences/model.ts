import type { Channel, DeliverySetting } from '#shared/api/channels.js';

/** A stored config: only the channels that were ever set. */
export type ChannelConfig = Partial<Record<Channel, DeliverySetting>>;

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
}

export const scopeOf = (documentId: string | null): Scope => (documentId === null ? 'organization' : 'document');
