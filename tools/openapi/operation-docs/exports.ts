import { exportJob } from '#shared/exports/kind.js';
import type { createExportRoute } from '#shared/exports/routes/create-export.js';
import type { getExportStatusRoute } from '#shared/exports/routes/get-export-status.js';
import { BODY_RULE, COMMON_ERRORS, IDENTIFIER_RULE, type OperationDocs, TIME, withNotFound } from './common.js';

export const EXAMPLE_EXPORT_ID = '01KBX7Q4M2RZ8N5V3T6W9YC1DE';

export const createExportDocs: OperationDocs<typeof createExportRoute> = {
  tag: 'Import and export',
  name: 'CreateExport',
  summary: "Start writing a file of the organization's preferences",
  description: [
    'Records an export (status `pending`), queues it, and answers its `exportId` at once. The file holds every',
    'stored entry, category layer and schedule of the organization (or of the named documents) in the',
    "import's row format: `jsonl` one object per line, `csv` with the header",
    '`userId,documentId,category,inbox,email,slack` (a CSV has no column for a schedule, so schedules are left out).',
    'Follow it with the status operation, whose `downloadUrl` fetches the file once it is completed. Files are',
    'deleted 7 days after they were written, and a later erasure does not rewrite them. With an `Idempotency-Key`',
    'header, a repeat within 24 hours answers the first answer.',
    '',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: [
    ...COMMON_ERRORS.filter((error) => error.status !== 'UNAVAILABLE'),
    {
      status: 'UNAVAILABLE',
      when: 'The export could not be queued (it is marked failed, `details.exportId` names it) or a dependency failed; safe to retry.',
    },
  ],
  examples: {
    start: {
      summary: "Export acme's preferences as JSON lines",
      value: { organizationId: 'acme', format: 'jsonl' },
      result: { exportId: EXAMPLE_EXPORT_ID },
    },
  },
  invalidExample: { summary: 'An unknown format', value: { organizationId: 'acme', format: 'xml' } },
  fields: {
    request: {
      format: '`jsonl` or `csv`.',
      documentIds: 'Only these documents (1 to 30); without, the whole organization, its organization level included.',
    },
    result: { exportId: 'Unique, sortable by creation time.' },
  },
};

export const getExportStatusDocs: OperationDocs<typeof getExportStatusRoute> = {
  tag: 'Import and export',
  name: 'ExportStatus',
  summary: 'Read the state of an export, and its file once written',
  description: [
    '`status` goes pending → in_progress → completed or failed. `rows` counts the rows written so far. Once',
    '`completed`, `downloadUrl` is a presigned GET of the file, valid 1 hour (`downloadExpiresAt`) and issued anew',
    'by each call. An unknown id and an id of another organization both answer 404 NOT_FOUND.',
    '',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: withNotFound('No export with this id in this organization.'),
  examples: {
    status: {
      summary: 'A completed export',
      value: { organizationId: 'acme', exportId: EXAMPLE_EXPORT_ID },
      result: {
        exportId: EXAMPLE_EXPORT_ID,
        organizationId: 'acme',
        format: 'jsonl',
        status: 'completed',
        rows: 2,
        downloadUrl: 'https://files.example.com/exports/acme/export-5f0c.jsonl?X-Amz-Signature=...',
        downloadExpiresAt: '2026-11-22T10:10:01.000Z',
        createdAt: '2026-11-22T09:10:00.000Z',
        updatedAt: '2026-11-22T09:10:00.800Z',
        completedAt: '2026-11-22T09:10:00.800Z',
      },
    },
  },
  invalidExample: { summary: 'Missing exportId', value: { organizationId: 'acme' } },
  errorExamples: {
    unknown: {
      summary: 'Unknown id, or an id of another organization',
      value: { error: { message: exportJob.wording.notFound, status: 'NOT_FOUND' } },
    },
  },
  fields: {
    result: {
      rows: 'Rows written to the file so far.',
      downloadUrl: 'Once completed: a presigned GET of the file, valid 1 hour, issued anew by each call.',
      downloadExpiresAt: TIME,
      createdAt: TIME,
      updatedAt: TIME,
      completedAt: TIME,
    },
  },
};
