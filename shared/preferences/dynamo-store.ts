import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Channel } from '#shared/api/channels.js';
import { isItemAt } from '#shared/platform/key-parts.js';
import { policyFromItem } from '#shared/policy/dynamo-store.js';
import { policyKey } from '#shared/policy/keys.js';
import { itemToEntry, readableEntries } from './entry-item.js';
import { EntryTable } from './entry-table.js';
import { entryTableKey } from './keys.js';
import type { ChannelConfig, EntryKey, StoredEntry } from './model.js';
import type { CallOptions, PreferenceStore, UserLayers, WithPolicy, WriteMeta } from './store.js';

/** The keys of each user's document entry and organization entry. */
const layerKeys = (organizationId: string, documentId: string, userIds: readonly string[]): EntryKey[] =>
  userIds.flatMap((userId): EntryKey[] => [
    { organizationId, userId, documentId },
    { organizationId, userId, documentId: null },
  ]);

/** The entries read by layerKeys, by user. */
const layersOf = (userIds: readonly string[], entries: StoredEntry[]): Map<string, UserLayers> => {
  const layers = new Map<string, UserLayers>(userIds.map((userId) => [userId, {}]));
  for (const entry of readableEntries(entries)) {
    const user = layers.get(entry.userId);
    if (user) user[entry.scope] = entry;
  }
  return layers;
};

/** The config table's PreferenceStore: entries written and read as entry-table.ts does. */
export class DynamoPreferenceStore implements PreferenceStore {
  private readonly table: EntryTable;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.table = new EntryTable(client, tableName);
  }

  async setChannels(key: EntryKey, config: ChannelConfig, meta: WriteMeta, options: CallOptions = {}): Promise<void> {
    await this.table.writeChannels(key, config, meta, false, options);
  }

  async resetChannels(
    key: EntryKey,
    channels: readonly Channel[],
    meta: WriteMeta,
    options: CallOptions = {},
  ): Promise<void> {
    await this.table.resetChannels(key, channels, meta, options);
  }

  async getEntries(keys: readonly EntryKey[]): Promise<StoredEntry[]> {
    return this.table.readEntries(keys);
  }

  async getEntriesWithPolicy(keys: readonly EntryKey[], organizationId: string): Promise<WithPolicy<StoredEntry[]>> {
    const { read, policy } = await this.readWithPolicy(keys, organizationId);
    return { read: readableEntries(read), policy };
  }

  async getUserLayers(
    organizationId: string,
    documentId: string,
    userIds: readonly string[],
  ): Promise<Map<string, UserLayers>> {
    const keys = layerKeys(organizationId, documentId, userIds).map(entryTableKey);
    return layersOf(userIds, (await this.table.batchGet(keys)).map(itemToEntry));
  }

  async getUserLayersWithPolicy(
    organizationId: string,
    documentId: string,
    userIds: readonly string[],
  ): Promise<WithPolicy<Map<string, UserLayers>>> {
    const { read, policy } = await this.readWithPolicy(layerKeys(organizationId, documentId, userIds), organizationId);
    return { read: layersOf(userIds, read), policy };
  }

  /**
   * The entries of `keys` and the organization's policy item (the same table), the policy in the
   * first chunk: on a cold start each call is some 5 ms of CPU, so the policy costs no call of its own.
   */
  private async readWithPolicy(keys: readonly EntryKey[], organizationId: string): Promise<WithPolicy<StoredEntry[]>> {
    const policy = policyKey(organizationId);
    const items = await this.table.batchGet([policy, ...keys.map(entryTableKey)]);
    const policyItem = items.find((item) => isItemAt(item, policy));
    return {
      read: items.filter((item) => item !== policyItem).map(itemToEntry),
      policy: policyFromItem(organizationId, policyItem),
    };
  }
}
