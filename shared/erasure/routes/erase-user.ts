import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { jobStartRoute } from '#shared/jobs/route-parts.js';

/** POST /v2/organizations/users/erase */
export const eraseRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userId: identifier('userId'),
});
export type EraseRequest = z.infer<typeof eraseRequest>;

export const ERASE_MESSAGE = 'User erasure started successfully.';

/** A job start (shared/jobs/start.ts): answers the erasure's id. */
export const eraseUserRoute = jobStartRoute(
  { idAttribute: 'erasureId', queue: 'erasures' },
  {
    operationId: 'eraseUser',
    path: '/v2/organizations/users/erase',
    request: eraseRequest,
    message: ERASE_MESSAGE,
    scope: 'erase',
  },
);
