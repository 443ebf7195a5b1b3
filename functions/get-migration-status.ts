import { operationById } from '#shared/api/operations.js';
import { createAuthenticator } from '#shared/auth/create-authenticator.js';
import { httpHandler } from '#shared/edge/http-handler.js';
import { DynamoMigrationRepository } from '#shared/migration/repository.js';
import { getMigrationView } from '#shared/migration/status.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';

const repository = new DynamoMigrationRepository(documentClient, tableName('migrations'));

export const handler = httpHandler(operationById('getMigrationStatus'), createAuthenticator(), ({ data }) =>
  getMigrationView({ repository }, data.organizationId, data.migrationId),
);
