import type { JobKind } from '#shared/jobs/kind.js';
import { abandonedReason } from '#shared/jobs/wording.js';
import { countMigrationEnded } from '#shared/platform/metrics.js';
import { lockKey, MIGRATION_PREFIX } from './keys.js';
import type { MigrationRecord, MigrationView } from './model.js';
import type { MigrateRequest } from './routes/migrate-document.js';

/**
 * Document migration as a job of the engine (shared/jobs/): what is a migration's own. Its page
 * step (what the consumer does) is in worker.ts.
 */
export const migrationJob: JobKind<MigrationRecord, MigrateRequest, MigrationView, 'migrationId'> = {
  name: 'migration',
  idAttribute: 'migrationId',
  keyPrefix: MIGRATION_PREFIX,
  // Migrations were the only job when the index was made: their partition keeps its first name.
  activePartition: 'ACTIVE',
  counters: ['moved', 'skipped'],
  pageFields: { skippedCheckpoint: [] },
  fields: ({ documentId, newDocumentId }) => ({ documentId, newDocumentId }),
  // Both documents, so that a document is in at most one active migration, whatever its role.
  subjectAttribute: 'documentId',
  lockKey,
  lockSubjects: ({ documentId, newDocumentId }) => [
    { subject: documentId, role: 'source' },
    { subject: newDocumentId, role: 'target' },
  ],
  view: (record, abandoned) => ({
    migrationId: record.migrationId,
    organizationId: record.organizationId,
    documentId: record.documentId,
    newDocumentId: record.newDocumentId,
    status: abandoned ? 'failed' : record.status,
    moved: record.moved,
    skipped: record.skipped,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.completedAt ? { completedAt: record.completedAt } : {}),
    ...(abandoned ? { error: abandonedReason({ name: 'migration' }) } : record.error ? { error: record.error } : {}),
  }),
  wording: {
    unfinished: 'documents may be partly migrated. Start it again to finish.',
    lostLock: 'Another migration involves one of its documents.',
    locksBusy: 'The document locks are changing hands; the request is safe to retry.',
    notFound: 'Migration not found.',
    conflict: ({ documentId, newDocumentId }) =>
      `Document ${JSON.stringify(documentId)} or ${JSON.stringify(newDocumentId)} is already part of an active migration; retry once it has finished.`,
  },
  ended: countMigrationEnded,
};
