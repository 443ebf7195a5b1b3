import { escapeKeyPart } from '#shared/preferences/keys.js';

/**
 * Keys of a migration's items in the migrations table (layout: shared/jobs/keys.ts and
 * docs/design.md). A document has one lock item, whatever its role, so it is in at most one
 * active migration.
 */
export const MIGRATION_PREFIX = 'MIGRATION#';

export const migrationKey = (migrationId: string) => ({ pk: `${MIGRATION_PREFIX}${migrationId}`, sk: 'RECORD' });

export const lockKey = (organizationId: string, documentId: string) => ({
  pk: `LOCK#${escapeKeyPart(organizationId)}#${escapeKeyPart(documentId)}`,
  sk: 'LOCK',
});
