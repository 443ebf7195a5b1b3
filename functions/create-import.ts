import { httpRoute } from '#shared/edge/http-route.js';
import { FileStore } from '#shared/files/store.js';
import { createImport } from '#shared/imports/create.js';
import { importJob } from '#shared/imports/kind.js';
import { createImportRoute } from '#shared/imports/routes/create-import.js';
import { DynamoIdempotencyStore } from '#shared/jobs/idempotency.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { filesBucketName, tableName } from '#shared/platform/environment.js';
import { s3Client } from '#shared/platform/s3-client.js';

const repository = new DynamoJobRepository(importJob, documentClient, tableName('migrations'));
const idempotency = new DynamoIdempotencyStore(documentClient, tableName('migrations'));
const files = new FileStore(s3Client, filesBucketName());

export const handler = httpRoute(
  createImportRoute,
  ({ data, credential }) => createImport({ repository, files }, data, credential.apiKey),
  { idempotency },
);
