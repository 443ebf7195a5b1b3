import { httpRoute } from '#shared/edge/http-route.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { deliveryDefaults, policyCacheSeconds, tableName } from '#shared/platform/environment.js';
import { DynamoPolicyStore } from '#shared/policy/dynamo-store.js';
import { PolicyReader } from '#shared/policy/reader.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { resolveConfig } from '#shared/preferences/resolve.js';
import { resolveConfigRoute } from '#shared/preferences/routes/resolve-config.js';

const store = new DynamoPreferenceStore(documentClient, tableName('config'));
const policies = new PolicyReader(new DynamoPolicyStore(documentClient, tableName('config')), policyCacheSeconds());
const defaults = deliveryDefaults();

export const handler = httpRoute(resolveConfigRoute, ({ data }) => resolveConfig({ store, defaults, policies }, data));
