import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoConsentTextStore } from '#shared/consent/text-store.js';
import { erasureJob } from '#shared/erasure/kind.js';
import { DynamoLastErasure, lastCompletedErasure } from '#shared/erasure/last-erasure.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { DynamoJobRecords } from '#shared/jobs/records.js';
import type { KeyringSource } from '#shared/links/keyring.js';
import { DynamoRevocationReader } from '#shared/links/revocation.js';
import type { TableName } from '#shared/platform/route.js';
import { DynamoErasureEntryStore } from '#shared/preferences/dynamo-erasure-entries.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import type { ExportDeps } from './export.js';

/** The export's sources in the stack's tables; `keys` seal its cursors and key the revocation items. */
export const dynamoExportDeps = (
  client: DynamoDBDocumentClient,
  tables: Record<Extract<TableName, 'config' | 'history' | 'migrations'>, string>,
  keys: KeyringSource,
): ExportDeps => {
  const last = new DynamoLastErasure(client, tables.migrations);
  const repository = new DynamoJobRecords(erasureJob, client, tables.migrations);
  return {
    entries: new DynamoErasureEntryStore(client, tables.config),
    reader: new DynamoPreferenceStore(client, tables.config),
    history: new DynamoHistoryStore(client, tables.history),
    texts: new DynamoConsentTextStore(client, tables.config),
    revocations: new DynamoRevocationReader(client, tables.config, keys),
    erasures: {
      lastCompleted: async (organizationId, userId) => {
        const view = await lastCompletedErasure({ last, repository }, organizationId, userId);
        return view && { kind: 'erasure' as const, ...view };
      },
    },
    keys,
  };
};
