import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { jobStartRoute } from '#shared/jobs/route-parts.js';

/** POST /v2/organizations/users/erase: a job start (shared/jobs/start.ts), answering the erasure's id. */
export const eraseUserRoute = jobStartRoute(
  { idAttribute: 'erasureId', queue: 'erasures' },
  {
    operationId: 'eraseUser',
    path: '/v2/organizations/users/erase',
    request: z.strictObject({ organizationId: identifier('organizationId'), userId: identifier('userId') }),
    message: 'User erasure started successfully.',
    scope: 'erase',
  },
);
export type EraseRequest = z.infer<typeof eraseUserRoute.request>;
