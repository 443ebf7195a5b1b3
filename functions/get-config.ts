import { operationById } from '#shared/api/operations.js';
import { createAuthenticator } from '#shared/auth/create-authenticator.js';
import { httpHandler } from '#shared/edge/http-handler.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { deliveryDefaults, tableName } from '#shared/platform/environment.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { getConfig } from '#shared/preferences/service.js';

const store = new DynamoPreferenceStore(documentClient, tableName('config'));
const defaults = deliveryDefaults();

export const handler = httpHandler(operationById('getConfig'), createAuthenticator(), ({ data }) =>
  getConfig({ store, defaults }, data),
);
