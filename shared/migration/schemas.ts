import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';

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

/** POST /v2/organizations/documents/migrate/status */
export const migrationStatusRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  migrationId: identifier('migrationId'),
});
export type MigrationStatusRequest = z.infer<typeof migrationStatusRequest>;

/** The body of a message on the migration queue (first delivery and continuations alike). */
export const migrationMessage = z.strictObject({ migrationId: identifier('migrationId') });
export type MigrationMessage = z.infer<typeof migrationMessage>;
