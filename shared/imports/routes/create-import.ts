import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { once } from '#shared/platform/once.js';
import type { Route } from '#shared/platform/route.js';
import { IMPORT_FORMATS } from '../read.js';

/**
 * POST /v2/organizations/imports/create: records an import waiting for its file and answers a
 * presigned PUT for it (contract 15.1); the upload's arrival starts it. Takes an Idempotency-Key.
 */
export const createImportRoute = {
  operationId: 'createImport',
  path: '/v2/organizations/imports/create',
  request: z.strictObject({
    organizationId: identifier('organizationId'),
    format: z.enum(IMPORT_FORMATS),
    dryRun: z.optional(z.boolean()),
    compression: z.optional(z.enum(['gzip'])),
  }),
  result: once(() =>
    z.strictObject({ importId: z.string(), uploadUrl: z.string(), uploadExpiresAt: z.iso.datetime() }),
  ),
  message: 'Import created: upload the file to uploadUrl.',
  scope: 'write',
  idempotencyKey: true,
  function: {
    // Records the import; signing its upload URL takes PutObject on the imports folder.
    tables: { migrations: ['PutItem', 'GetItem'] },
    files: { imports: ['PutObject'] },
  },
} as const satisfies Route;
export type ImportRequest = z.infer<typeof createImportRoute.request>;
