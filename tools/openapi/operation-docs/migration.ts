import { migrationJob } from '#shared/migration/kind.js';
import type { getMigrationStatusRoute } from '#shared/migration/routes/get-migration-status.js';
import type { migrateDocumentRoute } from '#shared/migration/routes/migrate-document.js';
import {
  BODY_RULE,
  COMMON_ERRORS,
  IDENTIFIER_RULE,
  type OperationDocs,
  TIME,
  withInvalidArgument,
  withNotFound,
} from './common.js';

export const EXAMPLE_MIGRATION_ID = '01KAR3V6ZQ8W5N4V7T2K9M1C0X';

export const migrateDocumentDocs: OperationDocs<typeof migrateDocumentRoute> = {
  tag: 'Document migration',
  name: 'Migrate',
  summary: "Start moving a document's config entries to a new document id",
  description: [
    'Records a migration (status `pending`), queues it, and answers its `migrationId` at once: the answer means',
    'started, not finished; follow it with the status operation. Every document-level entry of',
    '(organizationId, documentId) moves to (organizationId, newDocumentId); per user, the more recently updated',
    'entry wins. Organization-level entries and other organizations are not touched. Repeating the same request',
    'while its migration is pending or in progress answers the same `migrationId` and queues nothing new; with an',
    '`Idempotency-Key` header, a repeat within 24 hours answers the first answer even after the migration finished.',
    '',
    '`documentId` and `newDocumentId` must differ.',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: [
    ...withInvalidArgument(
      'Also `documentId` equal to `newDocumentId`.',
      COMMON_ERRORS.filter((error) => error.status !== 'UNAVAILABLE'),
    ),
    {
      status: 'ABORTED',
      when: 'The source or the target document is already part of another active migration; `details.migrationId` names it (follow it with the status operation).',
    },
    {
      status: 'UNAVAILABLE',
      when: 'The migration could not be queued (it is marked failed, `details.migrationId` names it) or a dependency failed; safe to retry.',
    },
  ],
  examples: {
    start: {
      summary: 'Move doc-1 to doc-1-v2',
      value: { organizationId: 'acme', documentId: 'doc-1', newDocumentId: 'doc-1-v2' },
      result: { migrationId: EXAMPLE_MIGRATION_ID },
    },
  },
  invalidExample: {
    summary: 'Same source and target',
    value: { organizationId: 'acme', documentId: 'doc-1', newDocumentId: 'doc-1' },
  },
  errorExamples: {
    conflict: {
      summary: 'Another migration is active on one of the documents',
      value: {
        error: {
          message: 'Document "doc-1" or "doc-1-v3" is already part of an active migration; retry once it has finished.',
          status: 'ABORTED',
          details: { migrationId: EXAMPLE_MIGRATION_ID },
        },
      },
    },
  },
  fields: {
    result: {
      migrationId: 'Unique, sortable by creation time.',
    },
  },
};

export const getMigrationStatusDocs: OperationDocs<typeof getMigrationStatusRoute> = {
  tag: 'Document migration',
  name: 'MigrationStatus',
  summary: 'Read the state and progress of a migration',
  description: [
    '`status` goes pending → in_progress → completed or failed (`error` says why). `moved` and `skipped` count',
    'source entries written to the target and source entries left because the target was newer; they grow while',
    'the migration runs. An unknown id and an id of another organization both answer 404 NOT_FOUND.',
    '',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: withNotFound('No migration with this id in this organization.'),
  examples: {
    status: {
      summary: 'A completed migration',
      value: { organizationId: 'acme', migrationId: EXAMPLE_MIGRATION_ID },
      result: {
        migrationId: EXAMPLE_MIGRATION_ID,
        organizationId: 'acme',
        documentId: 'doc-1',
        newDocumentId: 'doc-1-v2',
        status: 'completed',
        moved: 2,
        skipped: 0,
        createdAt: '2026-11-22T09:00:00.000Z',
        updatedAt: '2026-11-22T09:00:01.250Z',
        completedAt: '2026-11-22T09:00:01.250Z',
      },
    },
  },
  invalidExample: {
    summary: 'Missing migrationId',
    value: { organizationId: 'acme' },
  },
  errorExamples: {
    unknown: {
      summary: 'Unknown id, or an id of another organization',
      value: { error: { message: migrationJob.wording.notFound, status: 'NOT_FOUND' } },
    },
  },
  fields: {
    result: {
      moved: 'Source entries written to the target so far.',
      skipped: 'Source entries left because the target entry was newer.',
      createdAt: TIME,
      updatedAt: TIME,
      completedAt: TIME,
      error: 'Why the migration failed (status failed).',
    },
  },
};
