import { httpRoute } from '#shared/edge/http-route.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { getHistory } from '#shared/history/read.js';
import { getConfigHistoryRoute } from '#shared/history/routes/get-config-history.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';

const store = new DynamoHistoryStore(documentClient, tableName('history'));

export const handler = httpRoute(getConfigHistoryRoute, ({ data }) => getHistory({ store }, data));
