import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { jobStartRoute } from '#shared/jobs/route-parts.js';

/** POST /v2/organizations/documents/migrate: a job start (shared/jobs/start.ts), answering the migration's id. */
export const migrateDocumentRoute = jobStartRoute(
  { idAttribute: 'migrationId', queue: 'migrations' },
  {
    operationId: 'migrateDocument',
    path: '/v2/organizations/documents/migrate',
    request: z
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
      ),
    message: 'Document migration started successfully.',
    scope: 'migrate',
  },
);
export type MigrateRequest = z.infer<typeof migrateDocumentRoute.request>;
