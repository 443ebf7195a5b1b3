import { BatchGetCommand, DeleteCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CHANNELS, type Channel } from '#shared/api/channels.js';
import { drainWithBackoff } from '#shared/platform/backoff.js';
import { chunkStarts } from '#shared/platform/chunks.js';
import { conditional, ifConditionHolds, isConditionFailure } from '#shared/platform/conditional-write.js';
import { UnprocessedItemsError } from '#shared/platform/dependency-errors.js';
import { type ItemWrite, toDeleteItem, toUpdateItem } from '#shared/platform/item-write.js';
import type { TableKey } from '#shared/platform/key-parts.js';
import { BATCH_GET_LIMIT } from './batching.js';
import { hasChannel, type Item, itemToEntry, readableEntries } from './entry-item.js';
import { type ChannelChanges, type ChannelWrite, channelWrite, emptiedWrite, isFullWithout } from './entry-updates.js';
import { entryTableKey } from './keys.js';
import { CATEGORY_SET_ATTRIBUTE, categoryLayersOf, channelAttribute, hasValue, layerOf } from './layers.js';
import type { EntryKey, StoredEntry } from './model.js';
import { type CallOptions, CategoryLayersFull, type WriteMeta } from './store.js';

type KeysAndAttributes = { Keys: TableKey[]; ConsistentRead: boolean };

/**
 * The one way an entry of the config table is written and read back, shared by the adapters of
 * every port (preferences, schedules, migration and erasure entries): a conditional UpdateItem per
 * entry (per-channel last-writer-wins needs its conditions, and its per-channel retry), and
 * BatchGetItem for reads. An import's batches (dynamo-entry-changes.ts) send the same writes as
 * PartiQL and fall back to these. It holds the client and the table name, nothing of any request.
 */
export class EntryTable {
  constructor(
    readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  /** One conditional UpdateItem: the item as written (with `returnNew`), undefined when its condition did not hold. */
  async update(write: ItemWrite, { signal }: CallOptions = {}, returnNew = false): Promise<Item | undefined> {
    const output = await ifConditionHolds(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          ...toUpdateItem(write),
          ReturnValues: returnNew ? 'ALL_NEW' : 'NONE',
        }),
        { abortSignal: signal },
      ),
    );
    return output && (output.Attributes ?? {});
  }

  /**
   * Applies channel changes in one atomic UpdateItem (so concurrent writes of other channels are
   * kept). When some channel is stamped newer (or, for a reset, the entry is missing), the channels
   * are retried one by one, each on its own condition, so that the fresh ones still take effect.
   * Returns the entry as last written, or undefined when nothing was written.
   */
  async writeChannels(
    key: EntryKey,
    changes: ChannelChanges,
    meta: WriteMeta,
    mustExist: boolean,
    { signal }: CallOptions = {},
  ): Promise<Item | undefined> {
    const { category } = meta;
    const addsLayer = category !== undefined && Object.values(changes).some((value) => typeof value === 'string');
    // A reset refused because the entry does not exist has nothing to retry channel by channel.
    let missing = false;
    const update = async (write: ChannelWrite): Promise<Item | undefined> => {
      try {
        const output = await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            ...toUpdateItem(channelWrite(write)),
            ReturnValues: mustExist ? 'ALL_NEW' : 'NONE',
            ...(addsLayer || mustExist ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {}),
          }),
          { abortSignal: signal },
        );
        return output.Attributes ?? {};
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        // Refused for the entry's count of category layers, not for a newer write: no retry helps.
        const old = (error as { Item?: Record<string, { SS?: string[] }> }).Item;
        if (addsLayer && isFullWithout(old, category)) throw new CategoryLayersFull(key);
        missing = mustExist && old === undefined;
        return undefined;
      }
    };
    const whole = await update({ key, changes, meta, entryTime: true, mustExist });
    if (whole) return whole;
    // Resetting what is not stored succeeds with no more calls.
    if (missing) return undefined;
    const named = CHANNELS.filter((channel) => changes[channel] !== undefined);
    const one = await Promise.all(
      named.map((channel) =>
        update({ key, changes: { [channel]: changes[channel] }, meta, entryTime: false, mustExist }),
      ),
    );
    return one.filter((item) => item !== undefined).at(-1);
  }

  /**
   * Removes channels of one entry's layer (writeChannels, never creating it); a category layer
   * left with no value leaves the entry's set of categories, and an entry left with nothing goes
   * (emptiedWrite).
   */
  async resetChannels(
    key: EntryKey,
    channels: readonly Channel[],
    meta: WriteMeta,
    options: CallOptions = {},
  ): Promise<void> {
    const changes: ChannelChanges = Object.fromEntries(channels.map((channel) => [channel, null]));
    const after = await this.writeChannels(key, changes, meta, true, options);
    if (!after) return;
    if (meta.category !== undefined) await this.dropEmptyLayer(key, after, meta.category, options);
    if (hasChannel(after)) return;
    await this.dropEmptied(key, String(after.updatedAt), options);
  }

  /** emptiedWrite, alone: only if no concurrent write has given the entry something meanwhile. */
  async dropEmptied(key: EntryKey, updatedAt: string, { signal }: CallOptions = {}): Promise<void> {
    const write = emptiedWrite(key, updatedAt);
    if ('update' in write) {
      await this.update(write.update, { signal });
      return;
    }
    await conditional(() =>
      this.client.send(new DeleteCommand({ TableName: this.tableName, ...toDeleteItem(write.delete) }), {
        abortSignal: signal,
      }),
    );
  }

  /**
   * A category layer left with no value leaves the entry's set of categories (so it no longer
   * counts against the limit, and an entry with no value anywhere can be told by that set's
   * absence), unless a concurrent set has given it a value again meanwhile.
   */
  private async dropEmptyLayer(key: EntryKey, after: Item, category: string, { signal }: CallOptions): Promise<void> {
    const layer = layerOf(categoryLayersOf(after), category);
    const held = after[CATEGORY_SET_ATTRIBUTE];
    if ((layer && hasValue(layer.config)) || !(held instanceof Set) || !held.has(category)) return;
    const names: Record<string, string> = { '#categories': CATEGORY_SET_ATTRIBUTE };
    for (const channel of CHANNELS) names[`#${channel}`] = channelAttribute(channel, category);
    await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: entryTableKey(key),
          UpdateExpression: 'DELETE #categories :category',
          ConditionExpression: CHANNELS.map((channel) => `attribute_not_exists(#${channel})`).join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':category': new Set([category]) },
        }),
        { abortSignal: signal },
      ),
    );
    held.delete(category);
    if (held.size === 0) delete after[CATEGORY_SET_ATTRIBUTE];
  }

  /** Entries by key, as readers see them: missing entries and tombstones are absent. */
  async readEntries(keys: readonly EntryKey[]): Promise<StoredEntry[]> {
    return readableEntries((await this.batchGet(keys.map(entryTableKey))).map(itemToEntry));
  }

  /** BatchGetItem in chunks of BATCH_GET_LIMIT keys, all chunks at once, read consistently; throttled keys are retried. */
  async batchGet(keys: readonly TableKey[]): Promise<Item[]> {
    const chunks = chunkStarts(keys.length, BATCH_GET_LIMIT).map((start) => keys.slice(start, start + BATCH_GET_LIMIT));
    const read = await Promise.all(
      chunks.map(async (chunk) => {
        const items: Item[] = [];
        const unprocessed = await drainWithBackoff<KeysAndAttributes>(
          { Keys: chunk, ConsistentRead: true },
          async (request) => {
            const output = await this.client.send(new BatchGetCommand({ RequestItems: { [this.tableName]: request } }));
            items.push(...(output.Responses?.[this.tableName] ?? []));
            const rest = output.UnprocessedKeys?.[this.tableName] as KeysAndAttributes | undefined;
            return rest?.Keys?.length ? rest : undefined;
          },
        );
        if (unprocessed) throw new UnprocessedItemsError(`${unprocessed.Keys.length} keys left unread after retries`);
        return items;
      }),
    );
    return read.flat();
  }
}
