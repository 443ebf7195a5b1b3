import * as z from 'zod/mini';
import { categoryId } from '#shared/api/categories.js';
import { identifier } from '#shared/api/identifiers.js';
import { once } from '#shared/platform/once.js';
import type { Route } from '#shared/platform/route.js';
import { MAX_CURSOR_LENGTH } from '../cursor.js';
import { ENTRY_INDEX } from '../keys.js';
import { historyChange } from '../results.js';

export const DEFAULT_HISTORY_LIMIT = 50;
export const MAX_HISTORY_LIMIT = 100;

/** POST /v2/notifications/config/history */
export const historyRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userId: identifier('userId'),
  /** A document id: that entry; null: the organization-level entry; omitted: every entry of the user. */
  documentId: z.optional(z.nullable(identifier('documentId'))),
  /** A category id: that layer's changes; null: the all-categories layer's; omitted: every layer's. */
  category: z.optional(z.nullable(categoryId('category'))),
  limit: z.optional(
    z
      .int({ error: `limit must be a whole number from 1 to ${MAX_HISTORY_LIMIT}` })
      .check(
        z.minimum(1, { error: `limit must be from 1 to ${MAX_HISTORY_LIMIT}` }),
        z.maximum(MAX_HISTORY_LIMIT, { error: `limit must be from 1 to ${MAX_HISTORY_LIMIT}` }),
      ),
  ),
  cursor: z.optional(
    z
      .string({ error: 'cursor must be a string from a previous answer' })
      .check(
        z.minLength(1, { error: 'cursor must not be empty' }),
        z.maxLength(MAX_CURSOR_LENGTH, { error: `cursor must be at most ${MAX_CURSOR_LENGTH} characters` }),
      ),
  ),
});
export type HistoryRequest = z.infer<typeof historyRequest>;

export const historyResult = once(() =>
  z.strictObject({
    changes: z.array(historyChange()),
    nextCursor: z.optional(z.string()),
  }),
);
export type HistoryResult = z.output<ReturnType<typeof historyResult>>;

export const HISTORY_MESSAGE = 'User config history retrieved successfully.';

export const getConfigHistoryRoute = {
  operationId: 'getConfigHistory',
  path: '/v2/notifications/config/history',
  request: historyRequest,
  result: historyResult,
  message: HISTORY_MESSAGE,
  scope: 'read',
  // Reads only: one Query of the history table, or of its index of one entry's changes; the link
  // keys, from which the cursors' key is derived (cursor.ts).
  function: { tables: { history: ['Query'] }, indexes: { history: [ENTRY_INDEX] }, secrets: ['linkKeys'] },
} as const satisfies Route;
