import { httpRoute } from '#shared/edge/http-route.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { deliveryDefaults, tableName } from '#shared/platform/environment.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { getConfigRoute } from '#shared/preferences/routes/get-config.js';
import { getConfig } from '#shared/preferences/service.js';

const store = new DynamoPreferenceStore(documentClient, tableName('config'));
const defaults = deliveryDefaults();

export const handler = httpRoute(getConfigRoute, ({ data }) => getConfig({ store, defaults }, data));
