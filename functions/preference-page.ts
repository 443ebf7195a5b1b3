import { publicRoute } from '#shared/edge/public-route.js';
import { DynamoLinkStateReader } from '#shared/links/link-state.js';
import { fixedPagesIn } from '#shared/links/pages/fixed-pages.js';
import { preferencesPage } from '#shared/links/preferences.js';
import { preferencePageRoute } from '#shared/links/routes/preference-page.js';
import { SecretKeyring } from '#shared/links/secret-keyring.js';
import { dynamoExportDeps } from '#shared/people/dynamo-export.js';
import { exportAll } from '#shared/people/export.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import {
  deliveryDefaults,
  linkEvidenceClient,
  linkKeysCacheSeconds,
  secretId,
  tableName,
} from '#shared/platform/environment.js';
import { secretsClient } from '#shared/platform/secrets-client.js';
import { DynamoScheduleStore } from '#shared/preferences/dynamo-schedule-store.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';

const keys = new SecretKeyring(secretsClient, secretId('linkKeys'), linkKeysCacheSeconds());
const reader = new DynamoLinkStateReader(documentClient, tableName('config'), tableName('migrations'));
const store = new DynamoPreferenceStore(documentClient, tableName('config'));
const schedules = new DynamoScheduleStore(documentClient, tableName('config'));
const exportDeps = dynamoExportDeps(
  documentClient,
  { config: tableName('config'), history: tableName('history'), migrations: tableName('migrations') },
  keys,
);

export const handler = publicRoute(
  preferencePageRoute,
  fixedPagesIn,
  preferencesPage({
    keys,
    reader,
    store,
    schedules,
    defaults: deliveryDefaults(),
    keepClient: linkEvidenceClient(),
    download: (organizationId, userId) => exportAll(exportDeps, organizationId, userId),
  }),
);
