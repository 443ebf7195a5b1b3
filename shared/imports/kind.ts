import { fileKey } from '#shared/files/keys.js';
import type { JobKind } from '#shared/jobs/kind.js';
import { escapeKeyPart } from '#shared/preferences/keys.js';
import type { ImportRecord, ImportView } from './model.js';
import type { ImportRequest } from './routes/create-import.js';

/** Why an import whose file never arrived failed. */
export const NO_UPLOAD = 'No file was uploaded within the upload URL’s hour; create another import.';

/**
 * An organization's import as a job of the engine (shared/jobs/): what is an import's own. Its
 * page step is in worker.ts. A record waits for its upload (`queueBy`, set at its creation): the
 * file's arrival queues its first message (upload.ts). An import locks nothing: two imports of
 * one organization may run side by side, each row a change like any other.
 */
export const importJob: JobKind<ImportRecord, ImportRequest, ImportView, 'importId'> = {
  name: 'import',
  idAttribute: 'importId',
  keyPrefix: 'IMPORT#',
  activePartition: 'ACTIVE#IMPORT',
  counters: ['rowsRead', 'rowsApplied', 'rowsUnchanged', 'rowsRejected', 'rowsPartlyMapped'],
  pageFields: { line: 0, pendingStamp: null, pendingApplied: null, reportParts: [], failure: null },
  fields: ({ organizationId, format, dryRun, compression }, importId) => ({
    format,
    dryRun: dryRun ?? false,
    ...(compression ? { compression } : {}),
    fileKey: fileKey('imports', organizationId, importId),
    errorReportKey: `${fileKey('importErrors', organizationId, importId)}.jsonl`,
    errors: [],
  }),
  subjectAttribute: 'importId',
  lockKey: (organizationId, subject) => ({
    pk: `IMPORT_LOCK#${escapeKeyPart(organizationId)}#${escapeKeyPart(subject)}`,
    sk: 'LOCK',
  }),
  lockSubjects: () => [],
  view: (record, abandoned) => ({
    importId: record.importId,
    organizationId: record.organizationId,
    format: record.format,
    dryRun: record.dryRun,
    status: abandoned
      ? 'failed'
      : record.status === 'pending' && record.queuedAt === undefined
        ? 'waiting_upload'
        : record.status,
    rowsRead: record.rowsRead,
    rowsApplied: record.rowsApplied,
    rowsUnchanged: record.rowsUnchanged,
    rowsRejected: record.rowsRejected,
    rowsPartlyMapped: record.rowsPartlyMapped,
    errors: record.errors,
    ...(abandoned ? { error: NO_UPLOAD } : record.error ? { error: record.error } : {}),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.completedAt ? { completedAt: record.completedAt } : {}),
  }),
  wording: {
    unfinished: 'the counts say what was applied; importing the file again applies the rest.',
    abandoned: NO_UPLOAD,
    lostLock: 'Never answered: an import takes no lock.',
    locksBusy: 'Never answered: an import takes no lock.',
    notFound: 'Import not found.',
    conflict: () => 'Never answered: an import takes no lock.',
  },
};
