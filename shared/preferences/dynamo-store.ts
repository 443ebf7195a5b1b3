import {
  BatchExecuteStatementCommand,
  BatchGetCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  type PutCommandInput,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import pMap from 'p-map';
import { CHANNELS, type Channel, type DeliverySetting } from '#shared/api/channels.js';
import { drainWithBackoff } from '#shared/platform/backoff.js';
import { chunkStarts } from '#shared/platform/chunks.js';
import { conditional, ifConditionHolds, isConditionFailure } from '#shared/platform/conditional-write.js';
import { UnprocessedItemsError } from '#shared/platform/dependency-errors.js';
import {
  type Condition,
  type ItemDelete,
  type ItemWrite,
  type Statement,
  toDeleteItem,
  toPartiqlDelete,
  toPartiqlUpdate,
  toUpdateItem,
} from '#shared/platform/item-write.js';
import { isItemAt, keyId } from '#shared/platform/key-parts.js';
import { PARTIQL_BATCH_LIMIT, writeBatch } from '#shared/platform/partiql-batch.js';
import { policyFromItem } from '#shared/policy/dynamo-store.js';
import { policyKey } from '#shared/policy/keys.js';
import type { Schedule } from '#shared/schedules/schema.js';
import {
  ATTRIBUTION_ATTRIBUTES,
  attributionItem,
  type ChangeAttribution,
  type ChangeCause,
} from './change-attribution.js';
import { documentPartition, entryTableKey, parsePartition, USER_INDEX } from './keys.js';
import {
  CATEGORY_SET_ATTRIBUTE,
  categoryLayerAttributes,
  categoryLayersOf,
  channelAttribute,
  channelTimeAttribute,
  hasValue,
  layerOf,
  MAX_CATEGORY_LAYERS,
} from './layers.js';
import { type ChannelConfig, type EntryKey, type StoredEntry, scopeOf } from './model.js';
import {
  type CallOptions,
  CategoryLayersFull,
  type ErasureEntryStore,
  type ErasureMarker,
  type ExpectedVersion,
  type MarkedEntry,
  type MigrationEntryStore,
  type PreferenceStore,
  type ScheduleStore,
  type Unchanged,
  type UnchangedEntry,
  type UserEntryPage,
  type UserLayers,
  type WithPolicy,
  type WriteMeta,
} from './store.js';
import { isTombstone, TOMBSTONE_TTL_ATTRIBUTE, tombstoneExpiry } from './tombstone.js';

const BATCH_GET_LIMIT = 100;

type Item = Record<string, unknown>;
type KeysAndAttributes = {
  Keys: Item[];
  ConsistentRead: boolean;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
};

/** A tombstone is no entry to a reader. */
const readableEntries = (entries: StoredEntry[]): StoredEntry[] => entries.filter((entry) => !isTombstone(entry));

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

/** A stored schedule (written by this store, so trusted to be one). */
const storedSchedule = (json: string): Schedule => JSON.parse(json) as Schedule;

/** Maps a table item back to the domain entry. */
export const itemToEntry = (item: Item): StoredEntry => {
  const config: ChannelConfig = {};
  const channelAt: Partial<Record<Channel, string>> = {};
  for (const channel of CHANNELS) {
    const value = item[channel];
    if (value !== undefined) config[channel] = value as ChannelConfig[typeof channel];
    const at = item[channelTimeAttribute(channel)];
    if (typeof at === 'string') channelAt[channel] = at;
  }
  const documentId = (item.documentId as string | undefined) ?? null;
  const categories = categoryLayersOf(item);
  return {
    organizationId: item.organizationId as string,
    userId: item.userId as string,
    documentId,
    scope: scopeOf(documentId),
    config,
    updatedAt: item.updatedAt as string,
    updatedBy: item.updatedBy as string,
    version: Number(item.version ?? 0),
    ...(Object.keys(channelAt).length > 0 ? { channelAt } : {}),
    ...(Object.keys(categories).length > 0 ? { categories } : {}),
    ...(typeof item[SCHEDULE_ATTRIBUTE] === 'string' ? { schedule: storedSchedule(item[SCHEDULE_ATTRIBUTE]) } : {}),
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
  if (typeof item.erasureId === 'string') {
    entry.erasure = {
      erasureId: item.erasureId,
      run: String(item.erasureRun ?? ''),
      page: Number(item.erasurePage ?? 0),
    };
  }
  return entry;
};

/** A channel's new value, or null to remove it. */
type ChannelChanges = Partial<Record<Channel, DeliverySetting | null>>;

interface ChannelWrite {
  key: EntryKey;
  changes: ChannelChanges;
  meta: WriteMeta;
  /** Also move the entry's updatedAt (only when it is not newer than this write). */
  entryTime: boolean;
  /** Reset: never create the entry. */
  mustExist: boolean;
}

/**
 * A channel write of one entry (item-write.ts renders it as an UpdateItem or as PartiQL). Each
 * named channel is stamped with the write's time, on the condition that its stored stamp is not
 * newer: a write that lands late (a request frozen past its deadline and resumed) cannot replace
 * a newer value.
 */
const channelWrite = ({ key, changes, meta, entryTime, mustExist }: ChannelWrite): ItemWrite => {
  const { category } = meta;
  const write = entryWrite(key, meta, mustExist ? 'reset' : 'set', entryTime);
  if (mustExist) {
    write.conditions.push({ kind: 'exists', attribute: 'pk' });
  } else {
    write.set.push(...entryIdentity(key));
    // A set revives a tombstone: it must not expire with a channel in it.
    write.remove?.push(TOMBSTONE_TTL_ATTRIBUTE);
  }
  let setsValue = false;
  for (const channel of CHANNELS) {
    const value = changes[channel];
    if (value === undefined) continue;
    const attribute = channelAttribute(channel, category);
    if (value === null) {
      write.remove?.push(attribute);
    } else {
      write.set.push([attribute, value]);
      setsValue = true;
    }
    write.set.push([channelTimeAttribute(channel, category), meta.updatedAt]);
    write.conditions.push({
      kind: 'notAfter',
      attribute: channelTimeAttribute(channel, category),
      value: meta.updatedAt,
    });
  }
  if (category !== undefined && setsValue) {
    // The layer is counted in the entry's set of categories, at most MAX_CATEGORY_LAYERS of them.
    write.addToSet = [[CATEGORY_SET_ATTRIBUTE, new Set([category])]];
    write.conditions.push({
      kind: 'roomFor',
      attribute: CATEGORY_SET_ATTRIBUTE,
      member: category,
      max: MAX_CATEGORY_LAYERS,
    });
  }
  return write;
};

/**
 * What every write of an entry does: who and why (change-attribution.ts, for the change
 * stream), the version counted up, and the entry's updatedAt moved to the write's time, on the
 * condition that it is not newer (`entryTime`), or else left as it is (set only on a new entry).
 */
const entryWrite = (key: EntryKey, meta: WriteMeta, cause: ChangeCause, entryTime: boolean): ItemWrite => {
  const change = attributionItem({
    cause: meta.cause ?? cause,
    changedBy: meta.updatedBy,
    changedAt: meta.updatedAt,
  });
  const write: ItemWrite = {
    key: entryTableKey(key),
    set: [['updatedBy', meta.updatedBy], ...Object.entries(change)],
    setIfMissing: [],
    remove: [],
    increment: ['version'],
    conditions: [],
  };
  if (entryTime) {
    write.set.push(['updatedAt', meta.updatedAt]);
    write.conditions.push({ kind: 'notAfter', attribute: 'updatedAt', value: meta.updatedAt });
  } else {
    write.setIfMissing?.push(['updatedAt', meta.updatedAt]);
  }
  return write;
};

/** The attributes that name an entry, written by every write that may create it. */
const entryIdentity = (key: EntryKey): [string, unknown][] => [
  ['organizationId', key.organizationId],
  ['userId', key.userId],
  ['scope', scopeOf(key.documentId)],
  ...(key.documentId === null ? [] : ([['documentId', key.documentId]] as [string, unknown][])),
];

/**
 * Where the organization-level entry keeps the user's schedule, and its write time. The schedule
 * is one JSON string, not a map: resolve reads it for every user, and parsing one string costs a
 * fraction of converting a nested map attribute by attribute (the bench's section 4).
 */
export const SCHEDULE_ATTRIBUTE = 'schedule';
const SCHEDULE_TIME_ATTRIBUTE = 'scheduleAt';

/**
 * The write that replaces (or, with null, removes) the schedule of a user's organization-level
 * entry, creating the entry for a schedule. Like a channel, the schedule carries its write time:
 * a write stamped older than the stored one is refused (a late write never undoes a newer one).
 * `entryTime` also moves the entry's updatedAt, when not newer.
 */
const scheduleWrite = (key: EntryKey, schedule: Schedule | null, meta: WriteMeta, entryTime: boolean): ItemWrite => {
  const write = entryWrite(key, meta, 'set', entryTime);
  write.set.push([SCHEDULE_TIME_ATTRIBUTE, meta.updatedAt]);
  write.conditions.push({ kind: 'notAfter', attribute: SCHEDULE_TIME_ATTRIBUTE, value: meta.updatedAt });
  if (schedule === null) {
    write.conditions.push({ kind: 'exists', attribute: 'pk' });
    write.remove?.push(SCHEDULE_ATTRIBUTE);
  } else {
    write.set.push(...entryIdentity(key), [SCHEDULE_ATTRIBUTE, JSON.stringify(schedule)]);
  }
  return write;
};

/** Whether a refused update's item (as DynamoDB returned it, marshalled) is full of other categories. */
const isFullWithout = (item: Record<string, { SS?: string[] }> | undefined, category: string): boolean => {
  const held = item?.[CATEGORY_SET_ATTRIBUTE]?.SS ?? [];
  return held.length >= MAX_CATEGORY_LAYERS && !held.includes(category);
};

const hasChannel = (item: Item): boolean => !isTombstone(itemToEntry(item));

/**
 * The entry exists with nothing left in it: no channel in any layer (every category layer set adds
 * its id to the set of categories), no schedule. A concurrent write that gives it one wins.
 */
const emptyConditions = (): Condition[] => [
  { kind: 'exists', attribute: 'pk' },
  { kind: 'missing', attribute: CATEGORY_SET_ATTRIBUTE },
  { kind: 'missing', attribute: SCHEDULE_ATTRIBUTE },
  ...CHANNELS.map((channel): Condition => ({ kind: 'missing', attribute: channel })),
];

/**
 * What a reset does to an entry it left empty, only while it stays empty: a document-level entry
 * becomes a tombstone (tombstone.ts) that a migration of its document may need, its expiry never
 * made earlier than one it has (a newer reset's); an organization-level one, never migrated, is deleted.
 */
const emptiedWrite = (key: EntryKey, updatedAt: string): { update: ItemWrite } | { delete: ItemDelete } => {
  if (key.documentId === null) return { delete: { key: entryTableKey(key), conditions: emptyConditions() } };
  const expires = tombstoneExpiry(updatedAt);
  return {
    update: {
      key: entryTableKey(key),
      set: [[TOMBSTONE_TTL_ATTRIBUTE, expires]],
      conditions: [...emptyConditions(), { kind: 'notAfter', attribute: TOMBSTONE_TTL_ATTRIBUTE, value: expires }],
    },
  };
};

/**
 * The whole entry as one conditional put, replacing what is there if the target still has
 * `expected` (null: is still absent): the item layout of a written entry, in one place (the
 * store's putEntryIf, and a migration's copy in a transaction with its source's stamp).
 */
export const entryPut = (
  tableName: string,
  entry: MarkedEntry,
  expected: ExpectedVersion,
  change: ChangeAttribution,
): PutCommandInput & { Item: Item } => {
  const item: Item = {
    ...entryTableKey(entry),
    organizationId: entry.organizationId,
    userId: entry.userId,
    ...(entry.documentId === null ? {} : { documentId: entry.documentId }),
    scope: scopeOf(entry.documentId),
    ...entry.config,
    ...Object.fromEntries(
      Object.entries(entry.channelAt ?? {}).map(([c, at]) => [channelTimeAttribute(c as Channel), at]),
    ),
    ...categoryLayerAttributes(entry.categories),
    updatedAt: entry.updatedAt,
    updatedBy: entry.updatedBy,
    version: entry.version,
    ...attributionItem(change),
    // A migration that moves a reset onto its own copy may leave a tombstone at the target too.
    ...(isTombstone(entry) ? { [TOMBSTONE_TTL_ATTRIBUTE]: tombstoneExpiry(entry.updatedAt) } : {}),
    ...(entry.migration
      ? {
          migrationId: entry.migration.migrationId,
          migrationRun: entry.migration.run,
          migrationPage: entry.migration.page,
          migrationVersion: entry.migration.version,
        }
      : {}),
  };
  return {
    TableName: tableName,
    Item: item,
    ...(expected === null
      ? { ConditionExpression: 'attribute_not_exists(pk)' }
      : {
          ConditionExpression: '#version = :expected',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':expected': expected },
        }),
  };
};

/**
 * Stamps an entry with a delete's attribution if it is unchanged since it was read: no channel
 * changes, so the change stream skips it (change-attribution.ts). An erasure also marks its run
 * and page on it.
 */
export const stampWrite = (entry: UnchangedEntry, change: ChangeAttribution, marker?: ErasureMarker): ItemWrite => ({
  key: entryTableKey(entry),
  set: [
    ...Object.entries(attributionItem(change)),
    ...(marker
      ? ([
          ['erasureId', marker.erasureId],
          ['erasureRun', marker.run],
          ['erasurePage', marker.page],
        ] as [string, unknown][])
      : []),
  ],
  conditions: [
    { kind: 'equals', attribute: 'version', value: entry.version },
    { kind: 'equals', attribute: 'updatedAt', value: entry.updatedAt },
  ],
});

/**
 * Deletes an entry if it is unchanged since it was read (version and write time) and still
 * bears the stamp of `change` (stampWrite), which the change stream's record of the delete shows.
 */
export const deleteWrite = (entry: UnchangedEntry, change: ChangeAttribution): ItemDelete => ({
  key: entryTableKey(entry),
  conditions: [
    { kind: 'equals', attribute: 'version', value: entry.version },
    { kind: 'equals', attribute: 'updatedAt', value: entry.updatedAt },
    { kind: 'equals', attribute: ATTRIBUTION_ATTRIBUTES.changedBy, value: change.changedBy },
    { kind: 'equals', attribute: ATTRIBUTION_ATTRIBUTES.changedAt, value: change.changedAt },
  ],
});

/** The starts of the PartiQL batches of `count` items. */
const batchStarts = (count: number): number[] => chunkStarts(count, PARTIQL_BATCH_LIMIT);

/** What one request's batches found so far: entries that were there, entries created; its first batch. */
interface WriteTally {
  existing: number;
  created: number;
  first: Promise<unknown>;
}

export class DynamoPreferenceStore implements PreferenceStore, ScheduleStore, MigrationEntryStore, ErasureEntryStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  async setChannels(key: EntryKey, config: ChannelConfig, meta: WriteMeta, options: CallOptions = {}): Promise<void> {
    await this.writeChannels(key, config, meta, false, options);
  }

  /**
   * The same conditional writes as setChannels, as PartiQL statements, 25 to a
   * BatchExecuteStatement call (item-write.ts, partiql-batch.ts): one request instead of 25
   * costs the client a fraction of the CPU per entry, which lets the largest set finish well
   * within its deadline at the deployed memory, and unlike a transaction each statement costs 1
   * write unit. What a batch did not write is answered, and written entry by entry, where each
   * entry's own rules (per-channel times, concurrent channels, the limit of layers) apply exactly.
   */
  async setChannelsBatch(
    keys: readonly EntryKey[],
    config: ChannelConfig,
    meta: WriteMeta,
    { signal }: CallOptions = {},
  ): Promise<readonly EntryKey[]> {
    const writes = keys.map((key) => channelWrite({ key, changes: config, meta, entryTime: true, mustExist: false }));
    return this.writeInBatches(keys, writes, meta, signal);
  }

  /**
   * Writes in PartiQL batches of 25. An UPDATE applies only to an existing entry and an INSERT
   * only to a missing one; a statement refused for that is sent again as the other kind, and
   * both cost a write unit. So a request's first batch of 25 goes alone and tries UPDATE; from
   * then on each batch tries first the kind the request's earlier batches needed most (the
   * tally, by the request's meta, which all its batches share). A request of new entries, like
   * one of existing entries, costs 1 write unit per entry plus at most 25; one that mixes them
   * pays also for the batches in flight when the kind it needs changes.
   */
  private async writeInBatches(
    keys: readonly EntryKey[],
    writes: readonly ItemWrite[],
    meta: WriteMeta,
    signal: AbortSignal | undefined,
  ): Promise<readonly EntryKey[]> {
    let tally = this.tallies.get(meta);
    const write = async (start: number): Promise<EntryKey[]> => {
      const counts = tally as WriteTally;
      const outcome = await writeBatch(
        (statements) => this.executeStatements(statements, signal),
        this.tableName,
        writes.slice(start, start + PARTIQL_BATCH_LIMIT),
        counts.created > counts.existing ? 'insert' : 'update',
        signal,
      );
      counts.existing += outcome.existing;
      counts.created += outcome.created;
      return outcome.unwritten.map((index) => keys[start + index] as EntryKey);
    };
    const starts = batchStarts(writes.length);
    const unwritten: EntryKey[] = [];
    if (tally) {
      // Another batch of the request is finding out: wait for its answer (its failure is its own).
      await tally.first.catch(() => undefined);
    } else if (starts.length > 0) {
      const probe: WriteTally = { existing: 0, created: 0, first: Promise.resolve() };
      tally = probe;
      this.tallies.set(meta, probe);
      const first = write(starts.shift() as number);
      probe.first = first;
      unwritten.push(...(await first));
    }
    unwritten.push(...(await Promise.all(starts.map(write))).flat());
    return unwritten;
  }

  /** One BatchExecuteStatement: each statement's error code, undefined for those applied (a missing answer is no success). */
  private async executeStatements(statements: Statement[], signal: AbortSignal | undefined) {
    const output = await this.client.send(new BatchExecuteStatementCommand({ Statements: statements }), {
      abortSignal: signal,
    });
    const responses = output?.Responses ?? [];
    return statements.map((_, i) => (responses[i] ? responses[i].Error?.Code : 'NoResponse'));
  }

  /** What each request's batches found so far. */
  private readonly tallies = new WeakMap<WriteMeta, WriteTally>();

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
  private async dropEmptied(key: EntryKey, updatedAt: string, { signal }: CallOptions): Promise<void> {
    const write = emptiedWrite(key, updatedAt);
    await conditional(() =>
      'update' in write
        ? this.client.send(new UpdateCommand({ TableName: this.tableName, ...toUpdateItem(write.update) }), {
            abortSignal: signal,
          })
        : this.client.send(new DeleteCommand({ TableName: this.tableName, ...toDeleteItem(write.delete) }), {
            abortSignal: signal,
          }),
    );
  }

  /**
   * resetChannels for up to SET_BATCH_SIZE entries of the all-categories layer, in PartiQL
   * batches: one BatchGetItem finds the entries that are stored (a reset of one that is not does
   * nothing, as resetChannels' refused update does, which costs a call per entry, some 1 ms of CPU
   * each); those get resetChannels' own conditional update, 25 per call, and those it left empty
   * emptiedWrite, 25 per call. Answers the keys to reset one by one: an update refused (a channel
   * written after this reset, or the entry changed since the read) or not answered. A category's
   * layer goes one by one.
   */
  async resetChannelsBatch(
    keys: readonly EntryKey[],
    channels: readonly Channel[],
    meta: WriteMeta,
    { signal }: CallOptions = {},
  ): Promise<readonly EntryKey[]> {
    if (meta.category !== undefined) return keys;
    const changes: ChannelChanges = Object.fromEntries(channels.map((channel) => [channel, null]));
    let found: Set<string>;
    try {
      found = new Set((await this.batchGetItems(keys.map(entryTableKey), true)).map(keyId));
    } catch (error) {
      // Unread (throttled past its retries, or the call failed): each entry goes one by one, with
      // its own retries and its own answer, as a set's failed batch does.
      if (signal?.aborted) throw error;
      return keys;
    }
    const stored = keys.filter((key) => found.has(keyId(entryTableKey(key))));
    const unwritten: EntryKey[] = [];
    const reset: EntryKey[] = [];
    // At the deadline no further statement goes out (a frozen call would resume later): the
    // request answers 503 for what is left, and its retry finishes it.
    const inTurn = { concurrency: 2, ...(signal ? { signal } : {}) };
    await pMap(
      batchStarts(stored.length),
      async (start) => {
        signal?.throwIfAborted();
        const chunk = stored.slice(start, start + PARTIQL_BATCH_LIMIT);
        const { unwritten: refused } = await writeBatch(
          (statements) => this.executeStatements(statements, signal),
          this.tableName,
          chunk.map((key) => channelWrite({ key, changes, meta, entryTime: true, mustExist: true })),
          'update',
          signal,
        );
        for (const [index, key] of chunk.entries()) (refused.includes(index) ? unwritten : reset).push(key);
      },
      inTurn,
    );
    // The reset ones left empty: refused means something is left (a channel, a layer, a schedule).
    await pMap(
      batchStarts(reset.length),
      async (start) => {
        signal?.throwIfAborted();
        const chunk = reset.slice(start, start + PARTIQL_BATCH_LIMIT);
        const statements = chunk.map((key) => {
          const write = emptiedWrite(key, meta.updatedAt);
          return 'update' in write
            ? toPartiqlUpdate(this.tableName, write.update)
            : toPartiqlDelete(this.tableName, write.delete);
        });
        let codes: (string | undefined)[];
        try {
          codes = await this.executeStatements(statements, signal);
        } catch (error) {
          if (signal?.aborted) throw error;
          codes = chunk.map(() => 'CallFailed');
        }
        const again = chunk.filter(
          (_, index) => codes[index] !== undefined && codes[index] !== 'ConditionalCheckFailed',
        );
        for (const key of again) await this.dropEmptied(key, meta.updatedAt, { signal });
      },
      inTurn,
    );
    return unwritten;
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

  async setSchedule(
    key: EntryKey,
    schedule: Schedule | null,
    meta: WriteMeta,
    { signal }: CallOptions = {},
  ): Promise<void> {
    const update = (entryTime: boolean) =>
      ifConditionHolds(() =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            ...toUpdateItem(scheduleWrite(key, schedule, meta, entryTime)),
            ReturnValues: schedule === null ? 'ALL_NEW' : 'NONE',
          }),
          { abortSignal: signal },
        ),
      );
    // The entry changed after this request began: its time stays, the schedule's own condition decides.
    const output = (await update(true)) ?? (await update(false));
    if (schedule !== null || !output?.Attributes || hasChannel(output.Attributes)) return;
    // Its schedule removed, an entry with nothing else in it goes as a reset's emptied entry does
    // (an organization-level one, where schedules live, is deleted), unless a concurrent write has
    // given it something meanwhile.
    await this.dropEmptied(key, meta.updatedAt, { signal });
  }

  /** setSchedule (a schedule, not its removal) for up to SET_BATCH_SIZE users, as setChannelsBatch writes; answers the keys not written. */
  async setSchedulesBatch(
    keys: readonly EntryKey[],
    schedule: Schedule,
    meta: WriteMeta,
    { signal }: CallOptions = {},
  ): Promise<readonly EntryKey[]> {
    const writes = keys.map((key) => scheduleWrite(key, schedule, meta, true));
    return this.writeInBatches(keys, writes, meta, signal);
  }

  /**
   * Applies channel changes in one atomic UpdateItem (so concurrent writes of other channels
   * are kept). When some channel is stamped newer (or, for a reset, the entry is missing), the
   * channels are retried one by one, each on its own condition, so that the fresh ones still
   * take effect. Returns the entry as last written, or undefined when nothing was written.
   */
  private async writeChannels(
    key: EntryKey,
    changes: ChannelChanges,
    meta: WriteMeta,
    mustExist: boolean,
    { signal }: CallOptions,
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
    // Resetting what is not stored succeeds with no more calls (each refused one is some 1 ms of
    // CPU: 3,000 missing entries reset one by one took 8.1 s of CPU before, 3.6 s after).
    if (missing) return undefined;
    const named = CHANNELS.filter((channel) => changes[channel] !== undefined);
    const one = await Promise.all(
      named.map((channel) =>
        update({ key, changes: { [channel]: changes[channel] }, meta, entryTime: false, mustExist }),
      ),
    );
    return one.filter((item) => item !== undefined).at(-1);
  }

  async getEntries(keys: readonly EntryKey[]): Promise<StoredEntry[]> {
    return readableEntries(await this.batchGet(keys, itemToEntry));
  }

  async getEntriesWithPolicy(keys: readonly EntryKey[], organizationId: string): Promise<WithPolicy<StoredEntry[]>> {
    const { read, policy } = await this.batchGetWithPolicy(keys, organizationId);
    return { read: readableEntries(read), policy };
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

  async putEntryIf(entry: MarkedEntry, expected: ExpectedVersion, change: ChangeAttribution): Promise<boolean> {
    return conditional(() => this.client.send(new PutCommand(entryPut(this.tableName, entry, expected, change))));
  }

  /**
   * The stamps in PartiQL batches of 25, each statement on its own condition (1 write unit per
   * entry; a transaction cost 2 and bound entries that stand alone). A stamp refused by its
   * condition leaves its entry: the entry changed (or went) since it was read, and its version
   * never comes back. One the batch did not apply for another reason (throttled, no answer, the
   * call failed) is tried once more on its own: its answer is the entry's.
   */
  async stampForDelete(
    entries: readonly UnchangedEntry[],
    change: ChangeAttribution,
    marker?: ErasureMarker,
  ): Promise<EntryKey[]> {
    const writes = entries.map((entry) => stampWrite(entry, change, marker));
    const stamp = async (start: number): Promise<boolean[]> => {
      const chunk = writes.slice(start, start + PARTIQL_BATCH_LIMIT);
      const { unwritten, conditionFailed } = await writeBatch(
        (statements) => this.executeStatements(statements, undefined),
        this.tableName,
        chunk,
        'update',
      );
      const applied = chunk.map(() => true);
      for (const index of conditionFailed) applied[index] = false;
      await Promise.all(
        unwritten
          .filter((index) => applied[index])
          .map(async (index) => {
            applied[index] = await conditional(() =>
              this.client.send(
                new UpdateCommand({ TableName: this.tableName, ...toUpdateItem(chunk[index] as ItemWrite) }),
              ),
            );
          }),
      );
      return applied;
    };
    const applied = (await Promise.all(batchStarts(writes.length).map(stamp))).flat();
    return entries.filter((_, index) => applied[index]);
  }

  async deleteEntryIf(key: EntryKey, unchanged: Unchanged, change: ChangeAttribution): Promise<boolean> {
    const del = deleteWrite({ ...key, ...unchanged }, change);
    return conditional(() => this.client.send(new DeleteCommand({ TableName: this.tableName, ...toDeleteItem(del) })));
  }

  /**
   * The deletes in PartiQL batches of 25 (one request instead of 25; 1 write unit per entry, as
   * DeleteItem). A statement whose condition failed leaves its entry; one the batch did not
   * apply for another reason (throttled, the call failed) is tried once more on its own, and
   * its answer is the entry's.
   */
  async deleteEntriesIf(entries: readonly UnchangedEntry[], change: ChangeAttribution): Promise<EntryKey[]> {
    const remove = async (start: number): Promise<boolean[]> => {
      const chunk = entries.slice(start, start + PARTIQL_BATCH_LIMIT);
      const codes = await this.executeStatements(
        chunk.map((entry) => toPartiqlDelete(this.tableName, deleteWrite(entry, change))),
        undefined,
      ).catch(() => chunk.map(() => 'CallFailed'));
      return Promise.all(
        chunk.map((entry, i) =>
          codes[i] === undefined
            ? true
            : codes[i] === 'ConditionalCheckFailed'
              ? false
              : this.deleteEntryIf(entry, entry, change),
        ),
      );
    };
    const deleted = (await Promise.all(batchStarts(entries.length).map(remove))).flat();
    return entries.filter((_, index) => deleted[index]);
  }

  async listUserEntries(
    organizationId: string,
    userId: string,
    limit: number,
    startKey?: Record<string, string>,
  ): Promise<UserEntryPage> {
    const output = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: USER_INDEX,
        KeyConditionExpression: '#org = :org AND #user = :user',
        ExpressionAttributeNames: { '#org': 'organizationId', '#user': 'userId' },
        ExpressionAttributeValues: { ':org': organizationId, ':user': userId },
        Limit: limit,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    const keys = (output.Items ?? []).map((item): EntryKey => {
      const { documentId } = parsePartition(item.pk as string);
      return { organizationId, userId: item.sk as string, documentId };
    });
    const lastKey = output.LastEvaluatedKey as Record<string, string> | undefined;
    return { keys, ...(lastKey ? { lastKey } : {}) };
  }

  async getUserLayers(
    organizationId: string,
    documentId: string,
    userIds: readonly string[],
  ): Promise<Map<string, UserLayers>> {
    return layersOf(userIds, await this.batchGet(layerKeys(organizationId, documentId, userIds), itemToEntry));
  }

  async getUserLayersWithPolicy(
    organizationId: string,
    documentId: string,
    userIds: readonly string[],
  ): Promise<WithPolicy<Map<string, UserLayers>>> {
    const { read, policy } = await this.batchGetWithPolicy(
      layerKeys(organizationId, documentId, userIds),
      organizationId,
    );
    return { read: layersOf(userIds, read), policy };
  }

  /**
   * The entries of `keys` and the organization's policy item (the same table), the policy in the
   * first chunk: on a cold start each call is some 5 ms of CPU, so the policy costs no call of its own.
   */
  private async batchGetWithPolicy(
    keys: readonly EntryKey[],
    organizationId: string,
  ): Promise<WithPolicy<StoredEntry[]>> {
    const policy = policyKey(organizationId);
    const items = await this.batchGetItems([policy, ...keys.map(entryTableKey)]);
    const policyItem = items.find((item) => isItemAt(item, policy));
    return {
      read: items.filter((item) => item !== policyItem).map(itemToEntry),
      policy: policyFromItem(organizationId, policyItem),
    };
  }

  private async batchGet<T>(keys: readonly EntryKey[], map: (item: Item) => T): Promise<T[]> {
    return (await this.batchGetItems(keys.map(entryTableKey))).map(map);
  }

  /**
   * BatchGetItem in chunks of its 100-key maximum, all chunks at once; throttled keys are retried.
   * With `keysOnly`, the items' keys only: less to read back when only their presence counts.
   */
  private async batchGetItems(keys: readonly { pk: string; sk: string }[], keysOnly = false): Promise<Item[]> {
    const projection = keysOnly
      ? { ProjectionExpression: '#pk, #sk', ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' } }
      : {};
    const chunks = chunkStarts(keys.length, BATCH_GET_LIMIT).map((start) => keys.slice(start, start + BATCH_GET_LIMIT));
    const read = await Promise.all(
      chunks.map(async (chunk) => {
        const items: Item[] = [];
        const unprocessed = await drainWithBackoff<KeysAndAttributes>(
          { Keys: chunk, ConsistentRead: true, ...projection },
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
