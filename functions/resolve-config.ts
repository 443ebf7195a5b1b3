import { httpRoute } from '#shared/edge/http-route.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { deliveryDefaults, tableName } from '#shared/platform/environment.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { resolveConfig } from '#shared/preferences/resolve.js';
import { resolveConfigRoute } from '#shared/preferences/routes/resolve-config.js';

const store = new DynamoPreferenceStore(documentClient, tableName('config'));
const defaults = deliveryDefaults();

export const handler = httpRoute(resolveConfigRoute, ({ data }) => resolveConfig({ store, defaults }, data));
