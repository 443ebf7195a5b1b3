import { DynamoBrandingStore } from '#shared/branding/dynamo-store.js';
import { setBrandingRoute } from '#shared/branding/routes/set-branding.js';
import { setBranding } from '#shared/branding/service.js';
import { httpRoute } from '#shared/edge/http-route.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';

const store = new DynamoBrandingStore(documentClient, tableName('config'));

export const handler = httpRoute(setBrandingRoute, ({ data, credential }) =>
  setBranding({ store }, data, credential.apiKey),
);
