import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { StoreAccess } from '#shared/platform/route.js';
import { DynamoMarkedEntries } from '#shared/preferences/dynamo-marked-entries.js';
import { documentPartition, USER_INDEX, userIndexPage } from '#shared/preferences/keys.js';
import type { EntryKey, StoredEntry } from '#shared/preferences/model.js';
import type { UserEntryPage } from '#shared/preferences/store.js';

/** One page of an organization's entry keys, and where the next one starts. */
/** A page of the organization's entry keys (the same shape as an erasure's page of a user's). */
export type EntryKeyPage = UserEntryPage;

/** What an export reads of the config table: the organization's entries, page by page. */
export interface ExportEntryStore {
  /** A page of the organization's entry keys (of the named documents only, when given), in the index's order. */
  listOrganizationEntries(
    organizationId: string,
    documentIds: readonly string[] | undefined,
    limit: number,
    startKey?: Record<string, string>,
  ): Promise<EntryKeyPage>;
  getEntries(keys: readonly EntryKey[]): Promise<StoredEntry[]>;
}

/** What each operation touches: the user index (never a Scan), then the entries by key. */
export const EXPORT_ENTRY_STORE_GRANTS = {
  listOrganizationEntries: { indexes: { config: [USER_INDEX] } },
  getEntries: { tables: { config: ['BatchGetItem'] } },
} as const satisfies Record<keyof ExportEntryStore, StoreAccess>;

/**
 * The config table's ExportEntryStore: the organization's partition of the user index (keys
 * only, every entry of the organization), filtered to the named documents' partitions when
 * given, then the entries read in batches.
 */
export class DynamoExportEntryStore extends DynamoMarkedEntries implements ExportEntryStore {
  async listOrganizationEntries(
    organizationId: string,
    documentIds: readonly string[] | undefined,
    limit: number,
    startKey?: Record<string, string>,
  ): Promise<EntryKeyPage> {
    const documents = documentIds?.map((documentId) => documentPartition(organizationId, documentId)) ?? [];
    const output = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.tableName,
        IndexName: USER_INDEX,
        KeyConditionExpression: '#org = :org',
        ...(documents.length > 0
          ? { FilterExpression: `#pk IN (${documents.map((_, i) => `:d${i}`).join(', ')})` }
          : {}),
        ExpressionAttributeNames: { '#org': 'organizationId', ...(documents.length > 0 ? { '#pk': 'pk' } : {}) },
        ExpressionAttributeValues: {
          ':org': organizationId,
          ...Object.fromEntries(documents.map((pk, i) => [`:d${i}`, pk])),
        },
        Limit: limit,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    return userIndexPage(organizationId, output);
  }

  getEntries(keys: readonly EntryKey[]): Promise<StoredEntry[]> {
    return this.getMarkedEntries(keys);
  }
}
