import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import type { Route } from '#shared/platform/route.js';

/** POST /v2/organizations/users/erase */
export const eraseRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userId: identifier('userId'),
});
export type EraseRequest = z.infer<typeof eraseRequest>;

export const eraseResult = z.strictObject({ erasureId: z.string() });
export type EraseResult = z.output<typeof eraseResult>;

export const ERASE_MESSAGE = 'User erasure started successfully.';

export const eraseUserRoute = {
  operationId: 'eraseUser',
  path: '/v2/organizations/users/erase',
  request: eraseRequest,
  result: eraseResult,
  message: ERASE_MESSAGE,
  scope: 'erase',
  function: {
    // Read the user's lock and its erasure, record, lock, fail, release; then queue it.
    tables: { migrations: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    queues: { erasures: ['SendMessage'] },
  },
} as const satisfies Route;
