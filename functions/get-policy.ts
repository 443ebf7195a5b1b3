import { httpRoute } from '#shared/edge/http-route.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';
import { DynamoPolicyStore } from '#shared/policy/dynamo-store.js';
import { getPolicyRoute } from '#shared/policy/routes/get-policy.js';
import { getPolicy } from '#shared/policy/service.js';

const store = new DynamoPolicyStore(documentClient, tableName('config'));

export const handler = httpRoute(getPolicyRoute, ({ data }) => getPolicy({ store }, data));
