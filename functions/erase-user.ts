import { operationById } from '#shared/api/operations.js';
import { createAuthenticator } from '#shared/auth/create-authenticator.js';
import { httpHandler } from '#shared/edge/http-handler.js';
import { SqsErasureQueue } from '#shared/erasure/queue.js';
import { DynamoErasureRepository } from '#shared/erasure/repository.js';
import { startErasure } from '#shared/erasure/start.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { queueUrl, tableName } from '#shared/platform/environment.js';
import { sqsClient } from '#shared/platform/sqs-client.js';

const repository = new DynamoErasureRepository(documentClient, tableName('migrations'));
const queue = new SqsErasureQueue(sqsClient, queueUrl('erasures'));

export const handler = httpHandler(operationById('eraseUser'), createAuthenticator(), ({ data }) =>
  startErasure({ repository, queue }, data),
);
