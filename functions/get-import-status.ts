import { ApiError } from '#shared/api/errors.js';
import { httpRoute } from '#shared/edge/http-route.js';
import { FileStore } from '#shared/files/store.js';
import { importJob } from '#shared/imports/kind.js';
import { getImportStatusRoute } from '#shared/imports/routes/get-import-status.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { jobView } from '#shared/jobs/view.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { filesBucketName, tableName } from '#shared/platform/environment.js';
import { s3Client } from '#shared/platform/s3-client.js';

const repository = new DynamoJobRepository(importJob, documentClient, tableName('migrations'));
const files = new FileStore(s3Client, filesBucketName());

/** The import's view; once it has ended with lines to report, a presigned GET of the report, issued anew by each call. */
export const handler = httpRoute(getImportStatusRoute, async ({ data }) => {
  const record = await repository.get(data.importId);
  if (!record || record.organizationId !== data.organizationId) {
    throw new ApiError('NOT_FOUND', importJob.wording.notFound);
  }
  const now = new Date();
  const view = jobView(importJob, record, now);
  const reported = record.rowsRejected > 0 || record.rowsPartlyMapped > 0;
  if ((view.status !== 'completed' && view.status !== 'failed') || !reported) return view;
  const { url } = await files.downloadUrl(record.errorReportKey, now);
  return { ...view, errorReportUrl: url };
});
