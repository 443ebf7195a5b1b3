import { ApiError } from '#shared/api/errors.js';
import { logger } from '#shared/platform/logger.js';
import {
  assertCursorShape,
  type CursorKeySource,
  decodeCursor,
  encodeCursor,
  INVALID_CURSOR_MESSAGE,
} from './cursor.js';
import { DEFAULT_HISTORY_LIMIT, type HistoryRequest, type HistoryResult } from './routes/get-config-history.js';
import type { HistoryStore } from './store.js';

const isValidationError = (error: unknown) => (error as Error | undefined)?.name === 'ValidationException';

/**
 * docs/api.md, config/history: the user's changes in the organization, newest first, of one
 * document (`documentId`), of the organization-level entry (`null`) or of every entry (omitted);
 * `limit` per page, `nextCursor` while more may follow (sealed, cursor.ts: the keys are read only
 * for a request with a cursor or an answer with one). One Query.
 */
export const getHistory = async (
  { store, keys }: { store: HistoryStore; keys: CursorKeySource },
  request: HistoryRequest,
): Promise<HistoryResult> => {
  const { organizationId, userId, documentId, category, limit = DEFAULT_HISTORY_LIMIT, cursor } = request;
  const scope = { organizationId, userId, documentId };
  let startKey: ReturnType<typeof decodeCursor> | undefined;
  if (cursor !== undefined) {
    assertCursorShape(cursor);
    startKey = decodeCursor(cursor, scope, await keys.keyring());
  }
  try {
    const page = await store.list({ ...scope, category, limit, ...(startKey ? { startKey } : {}) });
    if (!page.lastKey) return { changes: page.changes };
    return { changes: page.changes, nextCursor: encodeCursor(page.lastKey, scope, await keys.keyring()) };
  } catch (error) {
    // decodeCursor admits only keys of the shape the service writes; should DynamoDB still refuse
    // one, the cursor came from the request: the caller's mistake (400), not an operator's page.
    if (!startKey || !isValidationError(error)) throw error;
    logger.warn('A history cursor passed validation but DynamoDB refused it', { reason: (error as Error).message });
    throw new ApiError('INVALID_ARGUMENT', INVALID_CURSOR_MESSAGE);
  }
};
