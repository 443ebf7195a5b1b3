import { httpRoute } from '#shared/edge/http-route.js';
import { DynamoErasureRepository } from '#shared/erasure/repository.js';
import { getErasureStatusRoute } from '#shared/erasure/routes/get-erasure-status.js';
import { getErasureView } from '#shared/erasure/status.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';

const repository = new DynamoErasureRepository(documentClient, tableName('migrations'));

export const handler = httpRoute(getErasureStatusRoute, ({ data }) =>
  getErasureView({ repository }, data.organizationId, data.erasureId),
);
