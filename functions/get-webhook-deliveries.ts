import { httpRoute } from '#shared/edge/http-route.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';
import { DynamoDeliveryLog } from '#shared/webhooks/dynamo-store.js';
import { getWebhookDeliveriesRoute } from '#shared/webhooks/routes/get-webhook-deliveries.js';
import { getWebhookDeliveries } from '#shared/webhooks/service.js';

const deliveries = new DynamoDeliveryLog(documentClient, tableName('history'));

export const handler = httpRoute(getWebhookDeliveriesRoute, ({ data }) => getWebhookDeliveries({ deliveries }, data));
