import { queueConsumer } from '#shared/edge/queue-consumer.js';
import { SqsErasureQueue } from '#shared/erasure/queue.js';
import { DynamoErasureRepository } from '#shared/erasure/repository.js';
import { erasureMessage } from '#shared/erasure/schemas.js';
import { runErasure } from '#shared/erasure/worker.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { maxReceiveCount, queueUrl, tableName } from '#shared/platform/environment.js';
import { sqsClient } from '#shared/platform/sqs-client.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';

/** SQS consumer of the erasure queue (docs/design.md, User erasure); see shared/erasure/worker.ts. */
const deps = {
  entries: new DynamoPreferenceStore(documentClient, tableName('config')),
  history: new DynamoHistoryStore(documentClient, tableName('history')),
  repository: new DynamoErasureRepository(documentClient, tableName('migrations')),
  queue: new SqsErasureQueue(sqsClient, queueUrl('erasures')),
};

export const handler = queueConsumer({
  message: erasureMessage,
  name: 'erasure message',
  maxReceiveCount: maxReceiveCount('erasures'),
  handle: ({ erasureId }, delivery) => runErasure(deps, erasureId, delivery),
});
