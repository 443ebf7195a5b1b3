import { DynamoConsentTextStore } from '#shared/consent/text-store.js';
import { httpRoute } from '#shared/edge/http-route.js';
import { erasureJob } from '#shared/erasure/kind.js';
import { DynamoLastErasure, lastCompletedErasure } from '#shared/erasure/last-erasure.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { DynamoRevocationReader } from '#shared/links/revocation.js';
import { SecretKeyring } from '#shared/links/secret-keyring.js';
import { exportUser } from '#shared/people/export.js';
import { exportUserRoute } from '#shared/people/routes/export-user.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { linkKeysCacheSeconds, secretId, tableName } from '#shared/platform/environment.js';
import { secretsClient } from '#shared/platform/secrets-client.js';
import { DynamoErasureEntryStore } from '#shared/preferences/dynamo-erasure-entries.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';

// The cursors are sealed with a key derived from the link keys (shared/history/cursor.ts).
const keys = new SecretKeyring(secretsClient, secretId('linkKeys'), linkKeysCacheSeconds());
const last = new DynamoLastErasure(documentClient, tableName('migrations'));
const repository = new DynamoJobRepository(erasureJob, documentClient, tableName('migrations'));

const deps = {
  entries: new DynamoErasureEntryStore(documentClient, tableName('config')),
  reader: new DynamoPreferenceStore(documentClient, tableName('config')),
  history: new DynamoHistoryStore(documentClient, tableName('history')),
  texts: new DynamoConsentTextStore(documentClient, tableName('config')),
  revocations: new DynamoRevocationReader(documentClient, tableName('config'), keys),
  erasures: {
    lastCompleted: async (organizationId: string, userId: string) => {
      const view = await lastCompletedErasure({ last, repository }, organizationId, userId);
      return view && { kind: 'erasure' as const, ...view };
    },
  },
  keys,
};

export const handler = httpRoute(exportUserRoute, ({ data }) => exportUser(deps, data));
