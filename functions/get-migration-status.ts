import { operationById } from '#shared/api/operations.js';
import { createAuthenticator } from '#shared/auth/create-authenticator.js';
import { documentClient } from '#shared/lambda/aws-clients.js';
import { ENV, requireEnv } from '#shared/lambda/environment.js';
import { httpHandler } from '#shared/lambda/http-handler.js';
import { DynamoMigrationRepository } from '#shared/migration/repository.js';
import { getMigrationView } from '#shared/migration/status.js';

const repository = new DynamoMigrationRepository(documentClient, requireEnv(ENV.migrationsTable));

export const handler = httpHandler(operationById('getMigrationStatus'), createAuthenticator(), ({ data }) =>
  getMigrationView({ repository }, data.organizationId, data.migrationId),
);
