import { createErasureConsumerHandler } from '#shared/erasure/consumer.js';
import { SqsErasureQueue } from '#shared/erasure/queue.js';
import { DynamoErasureRepository } from '#shared/erasure/repository.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { maxReceiveCount, queueUrl, tableName } from '#shared/platform/environment.js';
import { sqsClient } from '#shared/platform/sqs-client.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';

/** SQS consumer of the erasure queue (docs/design.md, User erasure); see shared/erasure/worker.ts. */
export const handler = createErasureConsumerHandler({
  deps: {
    entries: new DynamoPreferenceStore(documentClient, tableName('config')),
    history: new DynamoHistoryStore(documentClient, tableName('history')),
    repository: new DynamoErasureRepository(documentClient, tableName('migrations')),
    queue: new SqsErasureQueue(sqsClient, queueUrl('erasures')),
  },
  maxReceiveCount: maxReceiveCount('erasures'),
});
