import { jobStatusRoute } from '#shared/jobs/route-parts.js';
import { erasureStatusResult } from '../status-schema.js';

/** POST /v2/organizations/users/erase/status: a job's status (shared/jobs/view.ts), the erasure's view. */
export const getErasureStatusRoute = jobStatusRoute(
  { idAttribute: 'erasureId' },
  {
    operationId: 'getErasureStatus',
    path: '/v2/organizations/users/erase/status',
    result: erasureStatusResult,
    message: 'User erasure status retrieved successfully.',
  },
);
