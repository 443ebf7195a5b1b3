import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { JOB_STATUSES } from '#shared/jobs/status.js';
import type { Route } from '#shared/platform/route.js';

/** POST /v2/organizations/users/erase/status */
export const erasureStatusRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  erasureId: identifier('erasureId'),
});
export type ErasureStatusRequest = z.infer<typeof erasureStatusRequest>;

export const erasureStatusResult = z.strictObject({
  erasureId: z.string(),
  organizationId: z.string(),
  userId: z.string(),
  status: z.enum(JOB_STATUSES),
  erased: z.int().check(z.nonnegative()),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  completedAt: z.optional(z.iso.datetime()),
});
export type ErasureStatusResult = z.output<typeof erasureStatusResult>;

export const ERASURE_STATUS_MESSAGE = 'User erasure status retrieved successfully.';

export const getErasureStatusRoute = {
  operationId: 'getErasureStatus',
  path: '/v2/organizations/users/erase/status',
  request: erasureStatusRequest,
  result: erasureStatusResult,
  message: ERASURE_STATUS_MESSAGE,
  scope: 'read',
  function: { tables: { migrations: ['GetItem'] } },
} as const satisfies Route;
