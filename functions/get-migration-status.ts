import { httpRoute } from '#shared/edge/http-route.js';
import { DynamoMigrationRepository } from '#shared/migration/repository.js';
import { getMigrationStatusRoute } from '#shared/migration/routes/get-migration-status.js';
import { getMigrationView } from '#shared/migration/status.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';

const repository = new DynamoMigrationRepository(documentClient, tableName('migrations'));

export const handler = httpRoute(getMigrationStatusRoute, ({ data }) =>
  getMigrationView({ repository }, data.organizationId, data.migrationId),
);
