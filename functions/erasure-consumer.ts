import { createErasureConsumerHandler } from '#shared/erasure/consumer.js';
import { SqsErasureQueue } from '#shared/erasure/queue.js';
import { DynamoErasureRepository } from '#shared/erasure/repository.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { ENV, requireEnv } from '#shared/platform/environment.js';
import { sqsClient } from '#shared/platform/sqs-client.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';

/** SQS consumer of the erasure queue (docs/design.md, User erasure); see shared/erasure/worker.ts. */
export const handler = createErasureConsumerHandler({
  deps: {
    entries: new DynamoPreferenceStore(documentClient, requireEnv(ENV.configTable)),
    history: new DynamoHistoryStore(documentClient, requireEnv(ENV.historyTable)),
    repository: new DynamoErasureRepository(documentClient, requireEnv(ENV.migrationsTable)),
    queue: new SqsErasureQueue(sqsClient, requireEnv(ENV.erasureQueueUrl)),
  },
  maxReceiveCount: Number(requireEnv(ENV.erasureMaxReceiveCount)),
});
