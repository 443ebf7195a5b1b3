import { httpRoute } from '#shared/edge/http-route.js';
import { DynamoLinkRevoker } from '#shared/links/revocation.js';
import { revokeLinks } from '#shared/links/revoke.js';
import { revokeLinksRoute } from '#shared/links/routes/revoke-links.js';
import { SecretKeyring } from '#shared/links/secret-keyring.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { linkKeysCacheSeconds, secretId, tableName } from '#shared/platform/environment.js';
import { secretsClient } from '#shared/platform/secrets-client.js';

const keys = new SecretKeyring(secretsClient, secretId('linkKeys'), linkKeysCacheSeconds());
const revoker = new DynamoLinkRevoker(documentClient, tableName('config'), keys);

export const handler = httpRoute(revokeLinksRoute, ({ data, signal }) => revokeLinks({ revoker }, data, { signal }));
