import { operationById } from '#shared/api/operations.js';
import { createAuthenticator } from '#shared/auth/create-authenticator.js';
import { httpHandler } from '#shared/edge/http-handler.js';
import { DynamoErasureRepository } from '#shared/erasure/repository.js';
import { getErasureView } from '#shared/erasure/status.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';

const repository = new DynamoErasureRepository(documentClient, tableName('migrations'));

export const handler = httpHandler(operationById('getErasureStatus'), createAuthenticator(), ({ data }) =>
  getErasureView({ repository }, data.organizationId, data.erasureId),
);
