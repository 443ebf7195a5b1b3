import { httpRoute } from '#shared/edge/http-route.js';
import { SecretKeyring } from '#shared/links/secret-keyring.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { linkKeysCacheSeconds, secretId, tableName, webhooksAllowLoopback } from '#shared/platform/environment.js';
import { secretsClient } from '#shared/platform/secrets-client.js';
import { DynamoWebhookStore } from '#shared/webhooks/dynamo-store.js';
import { setWebhooksRoute } from '#shared/webhooks/routes/set-webhooks.js';
import { setWebhooks } from '#shared/webhooks/service.js';

const deps = {
  store: new DynamoWebhookStore(documentClient, tableName('config')),
  // New secrets are sealed with a key derived from the link keys (shared/webhooks/secrets.ts).
  keys: new SecretKeyring(secretsClient, secretId('linkKeys'), linkKeysCacheSeconds()),
  allowLoopback: webhooksAllowLoopback(),
};

export const handler = httpRoute(setWebhooksRoute, ({ data, credential }) =>
  setWebhooks(deps, data, credential.apiKey),
);
