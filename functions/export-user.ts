import { httpRoute } from '#shared/edge/http-route.js';
import { SecretKeyring } from '#shared/links/secret-keyring.js';
import { dynamoExportDeps } from '#shared/people/dynamo-export.js';
import { exportUser } from '#shared/people/export.js';
import { exportUserRoute } from '#shared/people/routes/export-user.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { linkKeysCacheSeconds, secretId, tableName } from '#shared/platform/environment.js';
import { secretsClient } from '#shared/platform/secrets-client.js';

// The cursors are sealed with a key derived from the link keys (shared/history/cursor.ts).
const keys = new SecretKeyring(secretsClient, secretId('linkKeys'), linkKeysCacheSeconds());
const deps = dynamoExportDeps(
  documentClient,
  { config: tableName('config'), history: tableName('history'), migrations: tableName('migrations') },
  keys,
);

export const handler = httpRoute(exportUserRoute, ({ data }) => exportUser(deps, data));
