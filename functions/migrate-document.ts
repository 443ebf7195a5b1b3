import { httpRoute } from '#shared/edge/http-route.js';
import { DynamoIdempotencyStore } from '#shared/jobs/idempotency.js';
import { SqsJobQueue } from '#shared/jobs/queue.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { startJob } from '#shared/jobs/start.js';
import { migrationJob } from '#shared/migration/kind.js';
import { migrateDocumentRoute } from '#shared/migration/routes/migrate-document.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { queueUrl, tableName } from '#shared/platform/environment.js';
import { sqsClient } from '#shared/platform/sqs-client.js';

const repository = new DynamoJobRepository(migrationJob, documentClient, tableName('migrations'));
const idempotency = new DynamoIdempotencyStore(documentClient, tableName('migrations'));
const queue = new SqsJobQueue(migrationJob, sqsClient, queueUrl('migrations'));

export const handler = httpRoute(
  migrateDocumentRoute,
  ({ data, credential }) => startJob(migrationJob, { repository, queue }, data, credential.apiKey),
  { idempotency },
);
