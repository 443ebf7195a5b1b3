import { queueConsumer } from '#shared/edge/queue-consumer.js';
import { SecretKeyring } from '#shared/links/secret-keyring.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import {
  linkKeysCacheSeconds,
  queueUrl,
  secretId,
  tableName,
  webhooksAllowLoopback,
} from '#shared/platform/environment.js';
import { secretsClient } from '#shared/platform/secrets-client.js';
import { sqsClient } from '#shared/platform/sqs-client.js';
import { dispatch, dispatcherMessage } from '#shared/webhooks/dispatcher.js';
import { DynamoDeliveryLog, DynamoWebhookStore } from '#shared/webhooks/dynamo-store.js';
import { WEBHOOK_MAX_RECEIVE_COUNT } from '#shared/webhooks/model.js';
import { SqsRetryQueue } from '#shared/webhooks/queue.js';
import { sendTo } from '#shared/webhooks/send.js';

/** SQS consumer of the webhooks queue (docs/api.md, Webhooks); see shared/webhooks/dispatcher.ts. */
const deps = {
  endpoints: new DynamoWebhookStore(documentClient, tableName('config')),
  deliveries: new DynamoDeliveryLog(documentClient, tableName('history')),
  retries: new SqsRetryQueue(sqsClient, queueUrl('webhooks')),
  keys: new SecretKeyring(secretsClient, secretId('linkKeys'), linkKeysCacheSeconds()),
  send: sendTo,
  allowLoopback: webhooksAllowLoopback(),
};

export const handler = queueConsumer({
  message: dispatcherMessage,
  name: 'webhook message',
  maxReceiveCount: WEBHOOK_MAX_RECEIVE_COUNT,
  handle: (message) => dispatch(deps, message),
});
