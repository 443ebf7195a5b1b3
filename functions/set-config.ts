import { DynamoConsentTextStore } from '#shared/consent/text-store.js';
import { httpRoute } from '#shared/edge/http-route.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { policyCacheSeconds, tableName } from '#shared/platform/environment.js';
import { DynamoPolicyStore } from '#shared/policy/dynamo-store.js';
import { PolicyReader } from '#shared/policy/reader.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { setConfigRoute } from '#shared/preferences/routes/set-config.js';
import { setConfig } from '#shared/preferences/service.js';

const store = new DynamoPreferenceStore(documentClient, tableName('config'));
const texts = new DynamoConsentTextStore(documentClient, tableName('config'));
const policies = new PolicyReader(new DynamoPolicyStore(documentClient, tableName('config')), policyCacheSeconds());

export const handler = httpRoute(setConfigRoute, ({ data, credential, signal }) =>
  setConfig({ store, policies, texts }, data, credential.apiKey, { signal }),
);
