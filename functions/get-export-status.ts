import { ApiError } from '#shared/api/errors.js';
import { httpRoute } from '#shared/edge/http-route.js';
import { exportJob } from '#shared/exports/kind.js';
import { getExportStatusRoute } from '#shared/exports/routes/get-export-status.js';
import { FileStore } from '#shared/files/store.js';
import { DynamoJobRecords } from '#shared/jobs/records.js';
import { jobView } from '#shared/jobs/view.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { filesBucketName, tableName } from '#shared/platform/environment.js';
import { s3Client } from '#shared/platform/s3-client.js';

const repository = new DynamoJobRecords(exportJob, documentClient, tableName('migrations'));
const files = new FileStore(s3Client, filesBucketName());

/** The export's view; once completed, a presigned GET of its file, issued anew by each call. */
export const handler = httpRoute(getExportStatusRoute, async ({ data }) => {
  const record = await repository.get(data.exportId);
  if (!record || record.organizationId !== data.organizationId) {
    throw new ApiError('NOT_FOUND', exportJob.wording.notFound);
  }
  const now = new Date();
  const view = jobView(exportJob, record, now);
  if (view.status !== 'completed') return view;
  const { url, expiresAt } = await files.downloadUrl(record.fileKey, now);
  return { ...view, downloadUrl: url, downloadExpiresAt: expiresAt };
});
