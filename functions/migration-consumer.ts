import { queueConsumer } from '#shared/edge/queue-consumer.js';
import { SqsMigrationQueue } from '#shared/migration/queue.js';
import { DynamoMigrationRepository } from '#shared/migration/repository.js';
import { migrationMessage } from '#shared/migration/schemas.js';
import { runMigration } from '#shared/migration/worker.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { maxReceiveCount, queueUrl, tableName } from '#shared/platform/environment.js';
import { sqsClient } from '#shared/platform/sqs-client.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';

/** SQS consumer of the migration queue (docs/design.md, One delivery of the consumer); see shared/migration/worker.ts. */
const deps = {
  entries: new DynamoPreferenceStore(documentClient, tableName('config')),
  repository: new DynamoMigrationRepository(documentClient, tableName('migrations')),
  queue: new SqsMigrationQueue(sqsClient, queueUrl('migrations')),
};

export const handler = queueConsumer({
  message: migrationMessage,
  name: 'migration message',
  maxReceiveCount: maxReceiveCount('migrations'),
  handle: ({ migrationId }, delivery) => runMigration(deps, migrationId, delivery),
});
