import { httpRoute } from '#shared/edge/http-route.js';
import { DynamoJobRecords } from '#shared/jobs/records.js';
import { getJobView } from '#shared/jobs/view.js';
import { migrationJob } from '#shared/migration/kind.js';
import { getMigrationStatusRoute } from '#shared/migration/routes/get-migration-status.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';

const repository = new DynamoJobRecords(migrationJob, documentClient, tableName('migrations'));

export const handler = httpRoute(getMigrationStatusRoute, ({ data }) =>
  getJobView(migrationJob, { repository }, data.organizationId, data.migrationId),
);
