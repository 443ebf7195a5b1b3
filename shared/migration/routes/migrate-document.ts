import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import type { Route } from '#shared/platform/route.js';

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

export const migrateResult = z.strictObject({ migrationId: z.string() });
export type MigrateResult = z.output<typeof migrateResult>;

export const MIGRATE_MESSAGE = 'Document migration started successfully.';

export const migrateDocumentRoute = {
  operationId: 'migrateDocument',
  path: '/v2/organizations/documents/migrate',
  request: migrateRequest,
  result: migrateResult,
  message: MIGRATE_MESSAGE,
  scope: 'migrate',
  function: {
    // Create the record and the document locks, read them, fail, release locks; then queue it.
    tables: { migrations: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    queues: { migrations: ['SendMessage'] },
  },
} as const satisfies Route;
