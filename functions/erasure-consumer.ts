import { jobConsumer } from '#shared/edge/job-consumer.js';
import { erasureJob } from '#shared/erasure/kind.js';
import { DynamoLastErasure } from '#shared/erasure/last-erasure.js';
import { runErasure } from '#shared/erasure/worker.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { SqsJobQueue } from '#shared/jobs/queue.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { DynamoLinkRevoker } from '#shared/links/revocation.js';
import { SecretKeyring } from '#shared/links/secret-keyring.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { linkKeysCacheSeconds, queueUrl, secretId, tableName } from '#shared/platform/environment.js';
import { secretsClient } from '#shared/platform/secrets-client.js';
import { sqsClient } from '#shared/platform/sqs-client.js';
import { DynamoErasureEntryStore } from '#shared/preferences/dynamo-erasure-entries.js';

/** SQS consumer of the erasure queue (docs/design.md, User erasure); see shared/erasure/worker.ts. */
const deps = {
  entries: new DynamoErasureEntryStore(documentClient, tableName('config')),
  history: new DynamoHistoryStore(documentClient, tableName('history')),
  links: new DynamoLinkRevoker(
    documentClient,
    tableName('config'),
    new SecretKeyring(secretsClient, secretId('linkKeys'), linkKeysCacheSeconds()),
  ),
  repository: new DynamoJobRepository(erasureJob, documentClient, tableName('migrations')),
  last: new DynamoLastErasure(documentClient, tableName('migrations')),
  queue: new SqsJobQueue(erasureJob, sqsClient, queueUrl('erasures')),
};

export const handler = jobConsumer(erasureJob, 'erasures', (erasureId, delivery) =>
  runErasure(deps, erasureId, delivery),
);
