import { decodeCursor, encodeCursor } from './cursor.js';
import type { HistoryResult } from './results.js';
import { DEFAULT_HISTORY_LIMIT, type HistoryRequest } from './schemas.js';
import type { HistoryStore } from './store.js';

export const HISTORY_MESSAGE = 'User config history retrieved successfully.';

/**
 * docs/api.md, config/history: the user's changes in the organization, newest first, of one
 * document (`documentId`), of the organization-level entry (`null`) or of every entry (omitted);
 * `limit` per page, `nextCursor` while more may follow. One Query.
 */
export const getHistory = async (
  { store }: { store: HistoryStore },
  request: HistoryRequest,
): Promise<HistoryResult> => {
  const { organizationId, userId, documentId, limit = DEFAULT_HISTORY_LIMIT, cursor } = request;
  const scope = { organizationId, userId, documentId };
  const page = await store.list({
    ...scope,
    limit,
    ...(cursor === undefined ? {} : { startKey: decodeCursor(cursor, scope) }),
  });
  return { changes: page.changes, ...(page.lastKey ? { nextCursor: encodeCursor(page.lastKey) } : {}) };
};
