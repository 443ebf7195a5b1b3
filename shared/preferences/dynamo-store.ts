import {
  BatchGetCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { drainWithBackoff } from '#shared/lambda/backoff.js';
import { UnprocessedItemsError } from '#shared/lambda/dependency-errors.js';
import { documentPartition, entryTableKey } from './keys.js';
import { CHANNELS, type ChannelConfig, type EntryKey, type StoredEntry, scopeOf } from './model.js';
import type { ExpectedVersion, MarkedEntry, MigrationEntryStore, PreferenceStore, WriteMeta } from './store.js';

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

/** itemToEntry plus the marker a migration leaves on the entries it writes. */
export const itemToMarkedEntry = (item: Item): MarkedEntry => {
  const entry: MarkedEntry = itemToEntry(item);
  if (typeof item.migrationId === 'string') {
    entry.migration = {
      migrationId: item.migrationId,
      run: String(item.migrationRun ?? ''),
      page: Number(item.migrationPage ?? 0),
      version: Number(item.migrationVersion ?? 0),
    };
  }
  return entry;
};

const isConditionFailure = (error: unknown): boolean =>
  (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';

export class DynamoPreferenceStore implements PreferenceStore, MigrationEntryStore {
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
    return this.batchGet(keys, itemToEntry);
  }

  async getMarkedEntries(keys: readonly EntryKey[]): Promise<MarkedEntry[]> {
    return this.batchGet(keys, itemToMarkedEntry);
  }

  async listDocumentEntries(organizationId: string, documentId: string, limit: number): Promise<MarkedEntry[]> {
    const output = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': documentPartition(organizationId, documentId) },
        ConsistentRead: true,
        Limit: limit,
      }),
    );
    return (output.Items ?? []).map(itemToMarkedEntry);
  }

  async putEntryIf(entry: MarkedEntry, expected: ExpectedVersion): Promise<boolean> {
    const item: Item = {
      ...entryTableKey(entry),
      organizationId: entry.organizationId,
      userId: entry.userId,
      ...(entry.documentId === null ? {} : { documentId: entry.documentId }),
      scope: scopeOf(entry.documentId),
      ...entry.config,
      updatedAt: entry.updatedAt,
      updatedBy: entry.updatedBy,
      version: entry.version,
      ...(entry.migration
        ? {
            migrationId: entry.migration.migrationId,
            migrationRun: entry.migration.run,
            migrationPage: entry.migration.page,
            migrationVersion: entry.migration.version,
          }
        : {}),
    };
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ...(expected === null
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : {
                ConditionExpression: '#version = :expected',
                ExpressionAttributeNames: { '#version': 'version' },
                ExpressionAttributeValues: { ':expected': expected },
              }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async deleteEntryIf(key: EntryKey, unchanged: { version: number; updatedAt: string }): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: entryTableKey(key),
          ConditionExpression: '#version = :version AND #at = :at',
          ExpressionAttributeNames: { '#version': 'version', '#at': 'updatedAt' },
          ExpressionAttributeValues: { ':version': unchanged.version, ':at': unchanged.updatedAt },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  private async batchGet<T>(keys: readonly EntryKey[], map: (item: Item) => T): Promise<T[]> {
    const entries: T[] = [];
    for (let start = 0; start < keys.length; start += BATCH_GET_LIMIT) {
      const chunk = keys.slice(start, start + BATCH_GET_LIMIT).map((key) => entryTableKey(key));
      const unprocessed = await drainWithBackoff<KeysAndAttributes>(
        { Keys: chunk, ConsistentRead: true },
        async (request) => {
          const output = await this.client.send(new BatchGetCommand({ RequestItems: { [this.tableName]: request } }));
          for (const item of output.Responses?.[this.tableName] ?? []) entries.push(map(item));
          const rest = output.UnprocessedKeys?.[this.tableName] as KeysAndAttributes | undefined;
          return rest?.Keys?.length ? rest : undefined;
        },
      );
      if (unprocessed) throw new UnprocessedItemsError(`${unprocessed.Keys.length} keys left unread after retries`);
    }
    return entries;
  }
}
