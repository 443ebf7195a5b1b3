import { operationById } from '#shared/api/operations.js';
import { createAuthenticator } from '#shared/auth/create-authenticator.js';
import { documentClient } from '#shared/lambda/aws-clients.js';
import { ENV, requireEnv } from '#shared/lambda/environment.js';
import { httpHandler } from '#shared/lambda/http-handler.js';
import { sqsClient } from '#shared/lambda/sqs-client.js';
import { SqsMigrationQueue } from '#shared/migration/queue.js';
import { DynamoMigrationRepository } from '#shared/migration/repository.js';
import { startMigration } from '#shared/migration/start.js';

const repository = new DynamoMigrationRepository(documentClient, requireEnv(ENV.migrationsTable));
const queue = new SqsMigrationQueue(sqsClient, requireEnv(ENV.migrationQueueUrl));

export const handler = httpHandler(operationById('migrateDocument'), createAuthenticator(), ({ data }) =>
  startMigration({ repository, queue }, data),
);
