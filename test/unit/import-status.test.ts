import { expect, test } from '@jest/globals';
import { ApiError } from '#shared/api/errors.js';
import { importJob } from '#shared/imports/kind.js';
import type { ImportRecord } from '#shared/imports/model.js';
import { importStatus } from '#shared/imports/status.js';
import { newJobRecord } from '#shared/jobs/start.js';
import { MemoryJobRepository } from '../support/import-fakes.js';

// imports/status: the report's URL only once the import has ended with rows to report, and an
// import of another organization answers as an unknown one.

const AT = new Date('2026-06-01T00:00:00Z');
const files = {
  downloadUrl: async (key: string) => ({ url: `https://files.test/${key}`, expiresAt: AT.toISOString() }),
};

const statusOf = async (fields: Partial<ImportRecord>, organizationId = 'acme') => {
  const repository = new MemoryJobRepository<ImportRecord>(importJob);
  const record = newJobRecord(importJob, { organizationId: 'acme', format: 'csv' }, 'ak_1', 'imp-1', AT.toISOString());
  await repository.create({ ...record, queuedAt: AT.toISOString(), ...fields });
  return importStatus({ repository, files }, { organizationId, importId: 'imp-1' }, AT);
};

test('an ended import with rejected or partly mapped rows answers its report; others answer none', async () => {
  const reported = await statusOf({ status: 'completed', rowsRejected: 1 });
  expect(reported.errorReportUrl).toMatch(/^https:\/\/files\.test\/import-errors\/acme\/imp-1-[0-9a-f]{32}\.jsonl$/);
  expect((await statusOf({ status: 'failed', rowsPartlyMapped: 2 })).errorReportUrl).toBeDefined();
  expect((await statusOf({ status: 'completed' })).errorReportUrl).toBeUndefined();
  expect((await statusOf({ status: 'in_progress', rowsRejected: 3 })).errorReportUrl).toBeUndefined();
});

test('an import of another organization is NOT_FOUND, as an unknown one', async () => {
  await expect(statusOf({ status: 'completed' }, 'globex')).rejects.toEqual(
    new ApiError('NOT_FOUND', importJob.wording.notFound),
  );
});
