import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { JOB_STATUSES } from '#shared/jobs/status.js';
import type { Route } from '#shared/platform/route.js';

/** POST /v2/organizations/documents/migrate/status */
export const migrationStatusRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  migrationId: identifier('migrationId'),
});
export type MigrationStatusRequest = z.infer<typeof migrationStatusRequest>;

export const migrationState = z.enum(JOB_STATUSES);

const count = () => z.int().check(z.nonnegative());

export const migrationStatusResult = z.strictObject({
  migrationId: z.string(),
  organizationId: z.string(),
  documentId: z.string(),
  newDocumentId: z.string(),
  status: migrationState,
  moved: count(),
  skipped: count(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  completedAt: z.optional(z.iso.datetime()),
  error: z.optional(z.string()),
});
export type MigrationStatusResult = z.output<typeof migrationStatusResult>;

export const STATUS_MESSAGE = 'Document migration status retrieved successfully.';

export const getMigrationStatusRoute = {
  operationId: 'getMigrationStatus',
  path: '/v2/organizations/documents/migrate/status',
  request: migrationStatusRequest,
  result: migrationStatusResult,
  message: STATUS_MESSAGE,
  scope: 'read',
  function: { tables: { migrations: ['GetItem'] } },
} as const satisfies Route;
