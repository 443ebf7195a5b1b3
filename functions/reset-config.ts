import { operationById } from '#shared/api/operations.js';
import { createAuthenticator } from '#shared/auth/create-authenticator.js';
import { httpHandler } from '#shared/edge/http-handler.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { resetConfig } from '#shared/preferences/reset.js';

const store = new DynamoPreferenceStore(documentClient, tableName('config'));

export const handler = httpHandler(
  operationById('resetConfig'),
  createAuthenticator(),
  ({ data, credential, signal }) => resetConfig({ store }, data, credential.apiKey, { signal }),
);
