import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';

export const DEFAULT_HISTORY_LIMIT = 50;
export const MAX_HISTORY_LIMIT = 100;
/** Far above any cursor the service hands out (a key of at most some 4 KiB, base64url). */
export const MAX_CURSOR_LENGTH = 8192;

/** POST /v2/notifications/config/history */
export const historyRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userId: identifier('userId'),
  /** A document id: that entry; null: the organization-level entry; omitted: every entry of the user. */
  documentId: z.optional(z.nullable(identifier('documentId'))),
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
