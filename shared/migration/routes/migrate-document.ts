import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { jobStartRoute } from '#shared/jobs/route-parts.js';

/** POST /v2/organizations/documents/migrate */
export const migrateRequest = z
  .strictObject({
    organizationId: identifier('organizationId'),
    documentId: identifier('documentId'),
    newDocumentId: identifier('newDocumentId'),
  })
  .check(
    z.refine((data) => data.documentId !== data.newDocumentId, {
      path: ['newDocumentId'],
      error: 'newDocumentId must differ from documentId',
    }),
  );
export type MigrateRequest = z.infer<typeof migrateRequest>;

export const MIGRATE_MESSAGE = 'Document migration started successfully.';

/** A job start (shared/jobs/start.ts): answers the migration's id. */
export const migrateDocumentRoute = jobStartRoute(
  { idAttribute: 'migrationId', queue: 'migrations' },
  {
    operationId: 'migrateDocument',
    path: '/v2/organizations/documents/migrate',
    request: migrateRequest,
    message: MIGRATE_MESSAGE,
    scope: 'migrate',
  },
);
