import { httpRoute } from '#shared/edge/http-route.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { deliveryDefaults, policyCacheSeconds, tableName } from '#shared/platform/environment.js';
import { DynamoPolicyStore } from '#shared/policy/dynamo-store.js';
import { PolicyReader } from '#shared/policy/reader.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { getConfigRoute } from '#shared/preferences/routes/get-config.js';
import { getConfig } from '#shared/preferences/service.js';

const store = new DynamoPreferenceStore(documentClient, tableName('config'));
const policies = new PolicyReader(new DynamoPolicyStore(documentClient, tableName('config')), policyCacheSeconds());
const defaults = deliveryDefaults();

export const handler = httpRoute(getConfigRoute, ({ data }) => getConfig({ store, defaults, policies }, data));
