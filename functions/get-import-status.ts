import { httpRoute } from '#shared/edge/http-route.js';
import { FileStore } from '#shared/files/store.js';
import { importJob } from '#shared/imports/kind.js';
import { getImportStatusRoute } from '#shared/imports/routes/get-import-status.js';
import { importStatus } from '#shared/imports/status.js';
import { DynamoJobRecords } from '#shared/jobs/records.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { filesBucketName, tableName } from '#shared/platform/environment.js';
import { s3Client } from '#shared/platform/s3-client.js';

const repository = new DynamoJobRecords(importJob, documentClient, tableName('migrations'));
const files = new FileStore(s3Client, filesBucketName());

export const handler = httpRoute(getImportStatusRoute, ({ data }) => importStatus({ repository, files }, data));
