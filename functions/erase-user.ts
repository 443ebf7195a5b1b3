import { operationById } from '#shared/api/operations.js';
import { createAuthenticator } from '#shared/auth/create-authenticator.js';
import { SqsErasureQueue } from '#shared/erasure/queue.js';
import { DynamoErasureRepository } from '#shared/erasure/repository.js';
import { startErasure } from '#shared/erasure/start.js';
import { documentClient } from '#shared/lambda/aws-clients.js';
import { ENV, requireEnv } from '#shared/lambda/environment.js';
import { httpHandler } from '#shared/lambda/http-handler.js';
import { sqsClient } from '#shared/lambda/sqs-client.js';

const repository = new DynamoErasureRepository(documentClient, requireEnv(ENV.migrationsTable));
const queue = new SqsErasureQueue(sqsClient, requireEnv(ENV.erasureQueueUrl));

export const handler = httpHandler(operationById('eraseUser'), createAuthenticator(), ({ data }) =>
  startErasure({ repository, queue }, data),
);
