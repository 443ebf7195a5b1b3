import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { conditional } from '#shared/platform/conditional-write.js';
import type { ChangeAttribution } from './change-attribution.js';
import { DynamoMarkedEntries } from './dynamo-marked-entries.js';
import { entryPut, itemToMarkedEntry } from './entry-item.js';
import { documentPartition } from './keys.js';
import type { ExpectedVersion, MarkedEntry, MigrationEntryStore } from './store.js';

/** The config table's MigrationEntryStore: a document's entries, whole-entry puts, and the stamped deletes. */
export class DynamoMigrationEntryStore extends DynamoMarkedEntries implements MigrationEntryStore {
  async listDocumentEntries(organizationId: string, documentId: string, limit: number): Promise<MarkedEntry[]> {
    const output = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': documentPartition(organizationId, documentId) },
        ConsistentRead: true,
        Limit: limit,
      }),
    );
    return (output.Items ?? []).map(itemToMarkedEntry);
  }

  async putEntryIf(entry: MarkedEntry, expected: ExpectedVersion, change: ChangeAttribution): Promise<boolean> {
    return conditional(() =>
      this.table.client.send(new PutCommand(entryPut(this.table.tableName, entry, expected, change))),
    );
  }
}
