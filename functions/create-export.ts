import { httpRoute } from '#shared/edge/http-route.js';
import { exportJob } from '#shared/exports/kind.js';
import { createExportRoute } from '#shared/exports/routes/create-export.js';
import { DynamoIdempotencyStore } from '#shared/jobs/idempotency.js';
import { SqsJobQueue } from '#shared/jobs/queue.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { startJob } from '#shared/jobs/start.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { queueUrl, tableName } from '#shared/platform/environment.js';
import { sqsClient } from '#shared/platform/sqs-client.js';

const repository = new DynamoJobRepository(exportJob, documentClient, tableName('migrations'));
const idempotency = new DynamoIdempotencyStore(documentClient, tableName('migrations'));
const queue = new SqsJobQueue(exportJob, sqsClient, queueUrl('exports'));

export const handler = httpRoute(
  createExportRoute,
  ({ data, credential }) => startJob(exportJob, { repository, queue }, data, credential.apiKey),
  { idempotency },
);
