import { operationById } from '#shared/api/operations.js';
import { createAuthenticator } from '#shared/auth/create-authenticator.js';
import { httpHandler } from '#shared/edge/http-handler.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { getHistory } from '#shared/history/read.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';

const store = new DynamoHistoryStore(documentClient, tableName('history'));

export const handler = httpHandler(operationById('getConfigHistory'), createAuthenticator(), ({ data }) =>
  getHistory({ store }, data),
);
