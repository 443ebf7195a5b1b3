import { createConsumerHandler } from '#shared/migration/consumer.js';
import { SqsMigrationQueue } from '#shared/migration/queue.js';
import { DynamoMigrationRepository } from '#shared/migration/repository.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { maxReceiveCount, queueUrl, tableName } from '#shared/platform/environment.js';
import { sqsClient } from '#shared/platform/sqs-client.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';

/** SQS consumer of the migration queue (docs/design.md, One delivery of the consumer); see shared/migration/worker.ts. */
export const handler = createConsumerHandler({
  deps: {
    entries: new DynamoPreferenceStore(documentClient, tableName('config')),
    repository: new DynamoMigrationRepository(documentClient, tableName('migrations')),
    queue: new SqsMigrationQueue(sqsClient, queueUrl('migrations')),
  },
  maxReceiveCount: maxReceiveCount('migrations'),
});
