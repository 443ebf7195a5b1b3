import { importJob } from '#shared/imports/kind.js';
import type { createImportRoute } from '#shared/imports/routes/create-import.js';
import type { getImportStatusRoute } from '#shared/imports/routes/get-import-status.js';
import { BODY_RULE, COMMON_ERRORS, IDENTIFIER_RULE, type OperationDocs, TIME, withNotFound } from './common.js';

export const EXAMPLE_IMPORT_ID = '01KBX9D2V7Q3M8N4R5T6W1YZ0A';

export const createImportDocs: OperationDocs<typeof createImportRoute> = {
  tag: 'Import and export',
  name: 'CreateImport',
  summary: 'Create an import and get the URL to upload its file to',
  description: [
    'Records an import (status `waiting_upload`) and answers a presigned PUT URL, valid 1 hour, for one file of',
    'at most 5 GB. The import starts by itself when the upload lands; no further call is needed. Formats: `jsonl`',
    '(one row object per line), `csv` (a header naming columns among `userId,documentId,category,inbox,email,slack`),',
    "`knock` and `novu` (one line per user as those products' APIs answer a user's preferences; docs/imports.md).",
    '`compression: "gzip"` reads the file through gunzip. `dryRun: true` reads and checks every row, counts what would',
    "change and writes nothing. Each row is checked as config/set checks a request, the policy's locks included;",
    'a bad row is rejected alone, and a file whose first 1,000 rows are all rejected fails with nothing applied.',
    'A row that matches what is stored writes nothing and counts as unchanged. With an `Idempotency-Key` header, a',
    'repeat within 24 hours answers the first answer.',
    '',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: COMMON_ERRORS,
  examples: {
    start: {
      summary: 'Import a gzip-compressed CSV file into acme',
      value: { organizationId: 'acme', format: 'csv', compression: 'gzip' },
      result: {
        importId: EXAMPLE_IMPORT_ID,
        uploadUrl: 'https://files.example.com/imports/acme/01KBX9D2V7Q3M8N4R5T6W1YZ0A-9c1f?X-Amz-Signature=...',
        uploadExpiresAt: '2026-11-22T10:10:00.000Z',
      },
    },
  },
  invalidExample: { summary: 'An unknown format', value: { organizationId: 'acme', format: 'xlsx' } },
  fields: {
    request: {
      format: '`jsonl`, `csv`, `knock` or `novu`.',
      dryRun: 'Check and count every row, write nothing (default false).',
      compression: '`gzip`: the uploaded file is gzip-compressed.',
    },
    result: {
      importId: 'Unique, sortable by creation time.',
      uploadUrl: 'A presigned PUT of the file, valid 1 hour; S3 refuses a file over 5 GB.',
      uploadExpiresAt: TIME,
    },
  },
};

export const getImportStatusDocs: OperationDocs<typeof getImportStatusRoute> = {
  tag: 'Import and export',
  name: 'ImportStatus',
  summary: 'Read the state and counts of an import',
  description: [
    '`status` goes waiting_upload → pending → in_progress → completed or failed; an import whose file does not',
    "arrive within the upload URL's hour fails. `rowsRead`, `rowsApplied`, `rowsUnchanged` and `rowsRejected` count",
    "the file's rows so far; `rowsPartlyMapped` the applied `knock` or `novu` rows that also held what has no",
    'equivalent here. `errors` lists the first 100 rejected rows; once the import has ended, `errorReportUrl` is a',
    'presigned GET (1 hour, issued anew by each call) of a JSON-lines report of every rejected and partly mapped',
    'row. A failed import says why in `error`, and its counts say exactly what was applied. An unknown id and an id',
    'of another organization both answer 404 NOT_FOUND.',
    '',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: withNotFound('No import with this id in this organization.'),
  examples: {
    status: {
      summary: 'A completed import with one rejected row',
      value: { organizationId: 'acme', importId: EXAMPLE_IMPORT_ID },
      result: {
        importId: EXAMPLE_IMPORT_ID,
        organizationId: 'acme',
        format: 'csv',
        dryRun: false,
        status: 'completed',
        rowsRead: 3,
        rowsApplied: 1,
        rowsUnchanged: 1,
        rowsRejected: 1,
        rowsPartlyMapped: 0,
        errors: [{ line: 4, message: 'config.email: must be one of ALL, MINE, NONE' }],
        errorReportUrl:
          'https://files.example.com/import-errors/acme/01KBX9D2V7Q3M8N4R5T6W1YZ0A-4e2a.jsonl?X-Amz-Signature=...',
        createdAt: '2026-11-22T09:10:00.000Z',
        updatedAt: '2026-11-22T09:10:02.400Z',
        completedAt: '2026-11-22T09:10:02.400Z',
      },
    },
  },
  invalidExample: { summary: 'Missing importId', value: { organizationId: 'acme' } },
  errorExamples: {
    unknown: {
      summary: 'Unknown id, or an id of another organization',
      value: { error: { message: importJob.wording.notFound, status: 'NOT_FOUND' } },
    },
  },
  fields: {
    result: {
      rowsRead: 'Rows of the file read so far (blank lines aside; a CSV header is not a row).',
      rowsApplied: 'Rows that changed what is stored (or would, in a dry run).',
      rowsUnchanged: 'Rows whose values were already stored: nothing written, nothing in the history.',
      rowsRejected: 'Rows refused, each with its line and reason in the report.',
      rowsPartlyMapped: 'Applied knock or novu rows that held what has no equivalent here (reported, not applied).',
      errors: 'The first 100 rejected rows: `{line, message}`.',
      error: 'Why a failed import stopped.',
      errorReportUrl: 'Once ended, with rows to report: a presigned GET of the report, valid 1 hour.',
      createdAt: TIME,
      updatedAt: TIME,
      completedAt: TIME,
    },
  },
};
