import * as z from 'zod/mini';
import { jobStatusRoute } from '#shared/jobs/route-parts.js';
import { JOB_STATUSES } from '#shared/jobs/status.js';
import { once } from '#shared/platform/once.js';
import { EXPORT_FORMATS } from '../rows.js';

export const exportStatusResult = once(() =>
  z.strictObject({
    exportId: z.string(),
    organizationId: z.string(),
    format: z.enum(EXPORT_FORMATS),
    status: z.enum(JOB_STATUSES),
    rows: z.int().check(z.nonnegative()),
    downloadUrl: z.optional(z.string()),
    downloadExpiresAt: z.optional(z.iso.datetime()),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    completedAt: z.optional(z.iso.datetime()),
  }),
);

/**
 * POST /v2/organizations/exports/status: a job's status (shared/jobs/view.ts), the export's view;
 * once completed, a presigned GET of the file, issued anew by each call (signing takes GetObject
 * on the exports folder).
 */
const status = jobStatusRoute(
  { idAttribute: 'exportId' },
  {
    operationId: 'getExportStatus',
    path: '/v2/organizations/exports/status',
    result: exportStatusResult,
    message: 'Export status retrieved successfully.',
  },
);
export const getExportStatusRoute = {
  ...status,
  function: { ...status.function, files: { exports: ['GetObject'] } },
} as const;
