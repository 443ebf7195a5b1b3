import { httpRoute } from '#shared/edge/http-route.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { setConfigRoute } from '#shared/preferences/routes/set-config.js';
import { setConfig } from '#shared/preferences/service.js';

const store = new DynamoPreferenceStore(documentClient, tableName('config'));

export const handler = httpRoute(setConfigRoute, ({ data, credential, signal }) =>
  setConfig({ store }, data, credential.apiKey, { signal }),
);
