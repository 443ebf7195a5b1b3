import { httpRoute } from '#shared/edge/http-route.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';
import { DynamoWebhookStore } from '#shared/webhooks/dynamo-store.js';
import { getWebhooksRoute } from '#shared/webhooks/routes/get-webhooks.js';
import { getWebhooks } from '#shared/webhooks/service.js';

const store = new DynamoWebhookStore(documentClient, tableName('config'));

export const handler = httpRoute(getWebhooksRoute, ({ data }) => getWebhooks({ store }, data));
