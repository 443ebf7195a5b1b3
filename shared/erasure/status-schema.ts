import * as z from 'zod/mini';
import { JOB_STATUSES } from '#shared/jobs/status.js';
import { once } from '#shared/platform/once.js';

/** An erasure's status record as answers give it: users/erase/status, and a user's export after an erasure. */
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
