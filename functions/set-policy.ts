import { httpRoute } from '#shared/edge/http-route.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';
import { DynamoPolicyStore } from '#shared/policy/dynamo-store.js';
import { setPolicyRoute } from '#shared/policy/routes/set-policy.js';
import { setPolicy } from '#shared/policy/service.js';

const store = new DynamoPolicyStore(documentClient, tableName('config'));

export const handler = httpRoute(setPolicyRoute, ({ data, credential }) =>
  setPolicy({ store }, data, credential.apiKey),
);
