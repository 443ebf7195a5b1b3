import { httpRoute } from '#shared/edge/http-route.js';
import { SecretKeyring } from '#shared/links/secret-keyring.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { linkKeysCacheSeconds, secretId, tableName } from '#shared/platform/environment.js';
import { secretsClient } from '#shared/platform/secrets-client.js';
import { DynamoWebhookStore } from '#shared/webhooks/dynamo-store.js';
import { rotateWebhookSecretRoute } from '#shared/webhooks/routes/rotate-webhook-secret.js';
import { rotateWebhookSecret } from '#shared/webhooks/service.js';

const deps = {
  store: new DynamoWebhookStore(documentClient, tableName('config')),
  keys: new SecretKeyring(secretsClient, secretId('linkKeys'), linkKeysCacheSeconds()),
};

export const handler = httpRoute(rotateWebhookSecretRoute, ({ data }) => rotateWebhookSecret(deps, data));
