import { createAuthenticator } from '#shared/auth/create-authenticator.js';
import { documentClient } from '#shared/lambda/aws-clients.js';
import { ENV, requireEnv } from '#shared/lambda/environment.js';
import { httpHandler } from '#shared/lambda/http-handler.js';
import { STATUS_MESSAGE } from '#shared/migration/model.js';
import { DynamoMigrationRepository } from '#shared/migration/repository.js';
import { migrationStatusRequest } from '#shared/migration/schemas.js';
import { getMigrationView } from '#shared/migration/status.js';

const repository = new DynamoMigrationRepository(documentClient, requireEnv(ENV.migrationsTable));

/** POST /v2/organizations/documents/migrate/status */
export const handler = httpHandler(
  { schema: migrationStatusRequest, authenticator: createAuthenticator() },
  async ({ data }) => ({
    message: STATUS_MESSAGE,
    data: await getMigrationView({ repository }, data.organizationId, data.migrationId),
  }),
);
