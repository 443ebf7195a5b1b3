import { fileKey } from '#shared/files/keys.js';
import type { JobKind } from '#shared/jobs/kind.js';
import { escapeKeyPart } from '#shared/preferences/keys.js';
import type { ExportRecord, ExportView } from './model.js';
import type { ExportRequest } from './routes/create-export.js';

/**
 * An organization's export as a job of the engine (shared/jobs/): what is an export's own. Its
 * page step (what the consumer does) is in worker.ts. An export locks nothing: it only reads, and
 * two exports of one organization may run side by side (a repeat is told by its Idempotency-Key).
 */
export const exportJob: JobKind<ExportRecord, ExportRequest, ExportView, 'exportId'> = {
  name: 'export',
  idAttribute: 'exportId',
  keyPrefix: 'EXPORT#',
  activePartition: 'ACTIVE#EXPORT',
  counters: ['rows'],
  pageFields: { cursor: null, uploadId: null, parts: [], written: false },
  fields: ({ organizationId, format, documentIds }, exportId) => ({
    format,
    ...(documentIds ? { documentIds } : {}),
    fileKey: `${fileKey('exports', organizationId, exportId)}.${format}`,
  }),
  subjectAttribute: 'exportId',
  lockKey: (organizationId, subject) => ({
    pk: `EXPORT_LOCK#${escapeKeyPart(organizationId)}#${escapeKeyPart(subject)}`,
    sk: 'LOCK',
  }),
  lockSubjects: () => [],
  view: (record, abandoned) => ({
    exportId: record.exportId,
    organizationId: record.organizationId,
    format: record.format,
    status: abandoned ? 'failed' : record.status,
    rows: record.rows,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.completedAt ? { completedAt: record.completedAt } : {}),
  }),
  wording: {
    unfinished: 'start another export.',
    lostLock: 'Never answered: an export takes no lock.',
    locksBusy: 'Never answered: an export takes no lock.',
    notFound: 'Export not found.',
    conflict: () => 'Never answered: an export takes no lock.',
  },
};
