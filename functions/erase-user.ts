import { httpRoute } from '#shared/edge/http-route.js';
import { erasureJob } from '#shared/erasure/kind.js';
import { eraseUserRoute } from '#shared/erasure/routes/erase-user.js';
import { DynamoIdempotencyStore } from '#shared/jobs/idempotency.js';
import { SqsJobQueue } from '#shared/jobs/queue.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { startJob } from '#shared/jobs/start.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { queueUrl, tableName } from '#shared/platform/environment.js';
import { sqsClient } from '#shared/platform/sqs-client.js';

const repository = new DynamoJobRepository(erasureJob, documentClient, tableName('migrations'));
const idempotency = new DynamoIdempotencyStore(documentClient, tableName('migrations'));
const queue = new SqsJobQueue(erasureJob, sqsClient, queueUrl('erasures'));

export const handler = httpRoute(
  eraseUserRoute,
  ({ data, credential }) => startJob(erasureJob, { repository, queue }, data, credential.apiKey),
  { idempotency },
);
