import { decodeCursor, encodeCursor } from './cursor.js';
import { DEFAULT_HISTORY_LIMIT, type HistoryRequest, type HistoryResult } from './routes/get-config-history.js';
import type { HistoryStore } from './store.js';

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
