import * as z from 'zod/mini';
import { jobStatusRoute } from '#shared/jobs/route-parts.js';
import { JOB_STATUSES } from '#shared/jobs/status.js';
import { once } from '#shared/platform/once.js';

export const migrationState = once(() => z.enum(JOB_STATUSES));

const count = () => z.int().check(z.nonnegative());

export const migrationStatusResult = once(() =>
  z.strictObject({
    migrationId: z.string(),
    organizationId: z.string(),
    documentId: z.string(),
    newDocumentId: z.string(),
    status: migrationState(),
    moved: count(),
    skipped: count(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    completedAt: z.optional(z.iso.datetime()),
    error: z.optional(z.string()),
  }),
);

/** POST /v2/organizations/documents/migrate/status: a job's status (shared/jobs/view.ts), the migration's view. */
export const getMigrationStatusRoute = jobStatusRoute(
  { idAttribute: 'migrationId' },
  {
    operationId: 'getMigrationStatus',
    path: '/v2/organizations/documents/migrate/status',
    result: migrationStatusResult,
    message: 'Document migration status retrieved successfully.',
  },
);
