import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { MAX_CURSOR_LENGTH } from '#shared/history/cursor.js';
import { accessOf, type Route } from '#shared/platform/route.js';
import { USER_EXPORT_READS } from '#shared/preferences/store-grants.js';
import { exportUserResult } from '../records.js';

/** POST /v2/organizations/users/export */
export const exportUserRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userId: identifier('userId'),
  cursor: z.optional(
    z
      .string({ error: 'cursor must be a string from a previous answer' })
      .check(
        z.minLength(1, { error: 'cursor must not be empty' }),
        z.maxLength(MAX_CURSOR_LENGTH * 8, { error: `cursor must be at most ${MAX_CURSOR_LENGTH * 8} characters` }),
      ),
  ),
});
export type ExportUserRequest = z.infer<typeof exportUserRequest>;

export const EXPORT_USER_MESSAGE = 'User data exported successfully.';

export const exportUserRoute = {
  operationId: 'exportUser',
  path: '/v2/organizations/users/export',
  request: exportUserRequest,
  result: exportUserResult,
  message: EXPORT_USER_MESSAGE,
  scope: 'read',
  function: {
    // What reading the export sends.
    ...accessOf(...USER_EXPORT_READS),
    // The cursors' key is derived from the link keys (shared/history/cursor.ts), as are the revocation items' keys.
    secrets: ['linkKeys'],
  },
} as const satisfies Route;
