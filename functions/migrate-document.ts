import { createAuthenticator } from '#shared/auth/create-authenticator.js';
import { documentClient, sqsClient } from '#shared/lambda/aws-clients.js';
import { ENV, requireEnv } from '#shared/lambda/environment.js';
import { httpHandler } from '#shared/lambda/http-handler.js';
import { MIGRATE_MESSAGE } from '#shared/migration/model.js';
import { SqsMigrationQueue } from '#shared/migration/queue.js';
import { DynamoMigrationRepository } from '#shared/migration/repository.js';
import { migrateRequest } from '#shared/migration/schemas.js';
import { startMigration } from '#shared/migration/start.js';

const repository = new DynamoMigrationRepository(documentClient, requireEnv(ENV.migrationsTable));
const queue = new SqsMigrationQueue(sqsClient, requireEnv(ENV.migrationQueueUrl));

/** POST /v2/organizations/documents/migrate */
export const handler = httpHandler(
  { schema: migrateRequest, authenticator: createAuthenticator() },
  async ({ data }) => ({
    message: MIGRATE_MESSAGE,
    data: await startMigration({ repository, queue }, data),
  }),
);
