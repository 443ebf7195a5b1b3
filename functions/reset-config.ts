import { DynamoConsentTextStore } from '#shared/consent/text-store.js';
import { httpRoute } from '#shared/edge/http-route.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { resetConfig } from '#shared/preferences/reset.js';
import { resetConfigRoute } from '#shared/preferences/routes/reset-config.js';

const store = new DynamoPreferenceStore(documentClient, tableName('config'));
const texts = new DynamoConsentTextStore(documentClient, tableName('config'));

export const handler = httpRoute(resetConfigRoute, ({ data, credential, signal }) =>
  resetConfig({ store, texts }, data, credential.apiKey, { signal }),
);
