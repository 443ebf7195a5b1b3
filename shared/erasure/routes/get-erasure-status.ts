import * as z from 'zod/mini';
import { jobStatusRoute } from '#shared/jobs/route-parts.js';
import { JOB_STATUSES } from '#shared/jobs/status.js';
import { once } from '#shared/platform/once.js';

export const erasureStatusResult = once(() =>
  z.strictObject({
    erasureId: z.string(),
    organizationId: z.string(),
    userId: z.string(),
    status: z.enum(JOB_STATUSES),
    erased: z.int().check(z.nonnegative()),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    completedAt: z.optional(z.iso.datetime()),
  }),
);

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
