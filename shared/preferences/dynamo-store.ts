import { BatchGetCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { drainWithBackoff } from '#shared/aws/backoff.js';
import { UnprocessedItemsError } from '#shared/aws/errors.js';
import { entryTableKey } from './keys.js';
import { CHANNELS, type ChannelConfig, type EntryKey, type StoredEntry, scopeOf } from './model.js';
import type { PreferenceStore, WriteMeta } from './store.js';

const BATCH_GET_LIMIT = 100;

type Item = Record<string, unknown>;
type KeysAndAttributes = { Keys: Item[]; ConsistentRead: boolean };

/** Maps a table item back to the domain entry. */
export const itemToEntry = (item: Item): StoredEntry => {
  const config: ChannelConfig = {};
  for (const channel of CHANNELS) {
    const value = item[channel];
    if (value !== undefined) config[channel] = value as ChannelConfig[typeof channel];
  }
  const documentId = (item.documentId as string | undefined) ?? null;
  return {
    organizationId: item.organizationId as string,
    userId: item.userId as string,
    documentId,
    scope: scopeOf(documentId),
    config,
    updatedAt: item.updatedAt as string,
    updatedBy: item.updatedBy as string,
    version: Number(item.version ?? 0),
  };
};

export class DynamoPreferenceStore implements PreferenceStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  async setChannels(key: EntryKey, config: ChannelConfig, meta: WriteMeta): Promise<void> {
    const names: Record<string, string> = {
      '#org': 'organizationId',
      '#user': 'userId',
      '#scope': 'scope',
      '#at': 'updatedAt',
      '#by': 'updatedBy',
      '#version': 'version',
    };
    const values: Record<string, unknown> = {
      ':org': key.organizationId,
      ':user': key.userId,
      ':scope': scopeOf(key.documentId),
      ':at': meta.updatedAt,
      ':by': meta.updatedBy,
      ':one': 1,
    };
    const sets = ['#org = :org', '#user = :user', '#scope = :scope', '#at = :at', '#by = :by'];
    if (key.documentId !== null) {
      names['#doc'] = 'documentId';
      values[':doc'] = key.documentId;
      sets.push('#doc = :doc');
    }
    for (const channel of CHANNELS) {
      const value = config[channel];
      if (value === undefined) continue;
      names[`#${channel}`] = channel;
      values[`:${channel}`] = value;
      sets.push(`#${channel} = :${channel}`);
    }
    // One UpdateItem per entry: DynamoDB applies it atomically, so concurrent requests that
    // set different channels of the same entry both take effect.
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: entryTableKey(key),
        UpdateExpression: `SET ${sets.join(', ')} ADD #version :one`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  }

  async getEntries(keys: readonly EntryKey[]): Promise<StoredEntry[]> {
    const entries: StoredEntry[] = [];
    for (let start = 0; start < keys.length; start += BATCH_GET_LIMIT) {
      const chunk = keys.slice(start, start + BATCH_GET_LIMIT).map((key) => entryTableKey(key));
      const unprocessed = await drainWithBackoff<KeysAndAttributes>(
        { Keys: chunk, ConsistentRead: true },
        async (request) => {
          const output = await this.client.send(new BatchGetCommand({ RequestItems: { [this.tableName]: request } }));
          for (const item of output.Responses?.[this.tableName] ?? []) entries.push(itemToEntry(item));
          const rest = output.UnprocessedKeys?.[this.tableName] as KeysAndAttributes | undefined;
          return rest?.Keys?.length ? rest : undefined;
        },
      );
      if (unprocessed) throw new UnprocessedItemsError(`${unprocessed.Keys.length} keys left unread after retries`);
    }
    return entries;
  }
}
