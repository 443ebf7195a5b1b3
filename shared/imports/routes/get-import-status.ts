import * as z from 'zod/mini';
import { jobStatusRoute } from '#shared/jobs/route-parts.js';
import { once } from '#shared/platform/once.js';
import { IMPORT_FORMATS } from '../read.js';

/** An import's statuses: a job's, and first `waiting_upload` until its file arrives. */
export const IMPORT_STATUSES = ['waiting_upload', 'pending', 'in_progress', 'completed', 'failed'] as const;

const count = () => z.int().check(z.nonnegative());

export const importStatusResult = once(() =>
  z.strictObject({
    importId: z.string(),
    organizationId: z.string(),
    format: z.enum(IMPORT_FORMATS),
    dryRun: z.boolean(),
    status: z.enum(IMPORT_STATUSES),
    rowsRead: count(),
    rowsApplied: count(),
    rowsUnchanged: count(),
    rowsRejected: count(),
    rowsPartlyMapped: count(),
    errors: z.array(z.strictObject({ line: z.int(), message: z.string() })),
    error: z.optional(z.string()),
    errorReportUrl: z.optional(z.string()),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    completedAt: z.optional(z.iso.datetime()),
  }),
);

/**
 * POST /v2/organizations/imports/status: a job's status (shared/jobs/view.ts), the import's view;
 * once rows were rejected, a presigned GET of the error report, issued anew by each call.
 */
const status = jobStatusRoute(
  { idAttribute: 'importId' },
  {
    operationId: 'getImportStatus',
    path: '/v2/organizations/imports/status',
    result: importStatusResult,
    message: 'Import status retrieved successfully.',
  },
);
export const getImportStatusRoute = {
  ...status,
  function: { ...status.function, files: { importErrors: ['GetObject'] } },
} as const;
