import { publicRoute } from '#shared/edge/public-route.js';
import { DynamoLinkStateReader } from '#shared/links/link-state.js';
import { fixedPagesIn } from '#shared/links/pages/fixed-pages.js';
import { unsubscribeRoute } from '#shared/links/routes/unsubscribe.js';
import { SecretKeyring } from '#shared/links/secret-keyring.js';
import { unsubscribePage } from '#shared/links/unsubscribe.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { linkEvidenceClient, linkKeysCacheSeconds, secretId, tableName } from '#shared/platform/environment.js';
import { secretsClient } from '#shared/platform/secrets-client.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';

const keys = new SecretKeyring(secretsClient, secretId('linkKeys'), linkKeysCacheSeconds());
const reader = new DynamoLinkStateReader(documentClient, tableName('config'), tableName('migrations'));
const store = new DynamoPreferenceStore(documentClient, tableName('config'));

export const handler = publicRoute(
  unsubscribeRoute,
  fixedPagesIn,
  unsubscribePage({ keys, reader, store, keepClient: linkEvidenceClient() }),
);
