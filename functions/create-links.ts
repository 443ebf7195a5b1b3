import { httpRoute } from '#shared/edge/http-route.js';
import { createLinks } from '#shared/links/create.js';
import { createLinksRoute } from '#shared/links/routes/create-links.js';
import { SecretKeyring } from '#shared/links/secret-keyring.js';
import { linkBaseUrl } from '#shared/links/urls.js';
import { linkKeysCacheSeconds, linksBaseUrl, secretId } from '#shared/platform/environment.js';
import { secretsClient } from '#shared/platform/secrets-client.js';

const keys = new SecretKeyring(secretsClient, secretId('linkKeys'), linkKeysCacheSeconds());
const configuredBase = linksBaseUrl();

export const handler = httpRoute(createLinksRoute, ({ data, domainName }) =>
  createLinks({ keys }, data, linkBaseUrl(configuredBase, domainName)),
);
