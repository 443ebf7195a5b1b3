import { operationById } from '#shared/api/operations.js';
import { createAuthenticator } from '#shared/auth/create-authenticator.js';
import { httpHandler } from '#shared/edge/http-handler.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { setConfig } from '#shared/preferences/service.js';

const store = new DynamoPreferenceStore(documentClient, tableName('config'));

export const handler = httpHandler(operationById('setConfig'), createAuthenticator(), ({ data, credential, signal }) =>
  setConfig({ store }, data, credential.apiKey, { signal }),
);
