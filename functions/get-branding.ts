import { DynamoBrandingStore } from '#shared/branding/dynamo-store.js';
import { getBrandingRoute } from '#shared/branding/routes/get-branding.js';
import { getBranding } from '#shared/branding/service.js';
import { httpRoute } from '#shared/edge/http-route.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';

const store = new DynamoBrandingStore(documentClient, tableName('config'));

export const handler = httpRoute(getBrandingRoute, ({ data }) => getBranding({ store }, data));
