import { jobConsumer } from '#shared/edge/job-consumer.js';
import { SqsJobQueue } from '#shared/jobs/queue.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { DynamoForwardWriter } from '#shared/links/forwarding.js';
import { DynamoMigrationEntries } from '#shared/migration/copies.js';
import { migrationJob } from '#shared/migration/kind.js';
import { runMigration } from '#shared/migration/worker.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { queueUrl, tableName } from '#shared/platform/environment.js';
import { sqsClient } from '#shared/platform/sqs-client.js';

/** SQS consumer of the migration queue (docs/design.md, One delivery of the consumer); see shared/migration/worker.ts. */
const deps = {
  entries: new DynamoMigrationEntries(documentClient, tableName('config')),
  repository: new DynamoJobRepository(migrationJob, documentClient, tableName('migrations')),
  forwards: new DynamoForwardWriter(documentClient, tableName('migrations')),
  queue: new SqsJobQueue(migrationJob, sqsClient, queueUrl('migrations')),
};

export const handler = jobConsumer(migrationJob, 'migrations', (migrationId, delivery) =>
  runMigration(deps, migrationId, delivery),
);
