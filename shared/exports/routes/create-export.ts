import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { jobStartRoute } from '#shared/jobs/route-parts.js';
import { EXPORT_FORMATS } from '../rows.js';

/** POST /v2/organizations/exports/create: a job start (shared/jobs/start.ts), answering the export's id. */
export const createExportRoute = jobStartRoute(
  { idAttribute: 'exportId', queue: 'exports' },
  {
    operationId: 'createExport',
    path: '/v2/organizations/exports/create',
    request: z.strictObject({
      organizationId: identifier('organizationId'),
      format: z.enum(EXPORT_FORMATS),
      documentIds: z.optional(z.array(identifier('documentId')).check(z.minLength(1), z.maxLength(30))),
    }),
    message: 'Export started successfully.',
    // Reading the organization's preferences out is reading (contract 15.2).
    scope: 'read',
  },
);
export type ExportRequest = z.infer<typeof createExportRoute.request>;
