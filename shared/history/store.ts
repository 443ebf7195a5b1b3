import type { RecordedChange } from './from-stream.js';
import type { HistoryChange } from './results.js';

/** Which entries of a user a history read covers: one document, the organization level, or all. */
export interface HistoryQuery {
  organizationId: string;
  userId: string;
  /** A document id: that entry only; null: the organization-level entry only; undefined: every entry. */
  documentId?: string | null | undefined;
  /** A category id: that layer's changes only; null: the all-categories layer's only; undefined: all. */
  category?: string | null | undefined;
  limit: number;
  /** Where the previous page stopped (a key the store answered as `lastKey`). */
  startKey?: Record<string, string> | undefined;
}

export interface HistoryPage {
  /** At most `limit`; fewer when a category filter passed over others (more may follow). */
  changes: HistoryChange[];
  /** Present when more changes may follow. */
  lastKey?: Record<string, string>;
  /**
   * Each change's table key (pk and sk), in the order of `changes`: a Query of every entry of the
   * user (no documentId) resumes after any of them (the export stops mid-page at its size bound).
   */
  positions?: Record<string, string>[];
}

/** A change to store, and when the table's TTL removes it (epoch seconds). */
export interface HistoryWrite {
  recorded: RecordedChange;
  expiresAt: number;
}

/** The first change of a `recordAll` that was not stored, and why. */
export interface HistoryWriteFailure {
  index: number;
  error: unknown;
}

/** The storage port of the change history (the DynamoDB adapter: dynamo-store.ts). */
export interface HistoryStore {
  /**
   * Stores changes, in any order. A change's key comes from its stream record, so a change
   * stored again (a redelivered record) is the same item. Answers the first change that could not
   * be stored (those after it may or may not be), undefined when every one was.
   */
  recordAll(writes: readonly HistoryWrite[]): Promise<HistoryWriteFailure | undefined>;
  /** Newest first. */
  list(query: HistoryQuery): Promise<HistoryPage>;
  /**
   * Deletes every change of these entries of the user (by their document, null for the
   * organization-wide entry), including those stored a moment ago; returns how many.
   */
  deleteEntryHistory(organizationId: string, userId: string, documentIds: readonly (string | null)[]): Promise<number>;
  /** Deletes every change of the user in the organization; returns how many. */
  deleteUserHistory(organizationId: string, userId: string): Promise<number>;
}
