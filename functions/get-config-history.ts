import { httpRoute } from '#shared/edge/http-route.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { getHistory } from '#shared/history/read.js';
import { getConfigHistoryRoute } from '#shared/history/routes/get-config-history.js';
import { SecretKeyring } from '#shared/links/secret-keyring.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { linkKeysCacheSeconds, secretId, tableName } from '#shared/platform/environment.js';
import { secretsClient } from '#shared/platform/secrets-client.js';

const store = new DynamoHistoryStore(documentClient, tableName('history'));
// The cursors are sealed with a key derived from the link keys (shared/history/cursor.ts).
const keys = new SecretKeyring(secretsClient, secretId('linkKeys'), linkKeysCacheSeconds());

export const handler = httpRoute(getConfigHistoryRoute, ({ data }) => getHistory({ store, keys }, data));
