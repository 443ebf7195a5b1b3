import { httpRoute } from '#shared/edge/http-route.js';
import { erasureJob } from '#shared/erasure/kind.js';
import { getErasureStatusRoute } from '#shared/erasure/routes/get-erasure-status.js';
import { DynamoJobRecords } from '#shared/jobs/records.js';
import { getJobView } from '#shared/jobs/view.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';

const repository = new DynamoJobRecords(erasureJob, documentClient, tableName('migrations'));

export const handler = httpRoute(getErasureStatusRoute, ({ data }) =>
  getJobView(erasureJob, { repository }, data.organizationId, data.erasureId),
);
