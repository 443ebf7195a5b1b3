import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoMarkedEntries } from './dynamo-marked-entries.js';
import { USER_INDEX, userIndexPage } from './keys.js';
import type { ErasureEntryStore, UserEntryPage } from './store.js';

/** The config table's ErasureEntryStore: a user's entries found on the user index, and the stamped deletes. */
export class DynamoErasureEntryStore extends DynamoMarkedEntries implements ErasureEntryStore {
  async listUserEntries(
    organizationId: string,
    userId: string,
    limit: number,
    startKey?: Record<string, string>,
  ): Promise<UserEntryPage> {
    const output = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.tableName,
        IndexName: USER_INDEX,
        KeyConditionExpression: '#org = :org AND #user = :user',
        ExpressionAttributeNames: { '#org': 'organizationId', '#user': 'userId' },
        ExpressionAttributeValues: { ':org': organizationId, ':user': userId },
        Limit: limit,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    return userIndexPage(organizationId, output);
  }
}
