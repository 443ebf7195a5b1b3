import type { PutCommandInput } from '@aws-sdk/lib-dynamodb';
import { CHANNELS, type Channel } from '#shared/api/channels.js';
import type { Schedule } from '#shared/schedules/schema.js';
import { attributionItem, type ChangeAttribution } from './change-attribution.js';
import { entryTableKey } from './keys.js';
import { categoryLayerAttributes, categoryLayersOf, channelTimeAttribute } from './layers.js';
import { type ChannelConfig, type StoredEntry, scopeOf } from './model.js';
import type { ExpectedVersion, MarkedEntry } from './store.js';
import { isTombstone, TOMBSTONE_TTL_ATTRIBUTE, tombstoneExpiry } from './tombstone.js';

/** An entry as the config table stores it: the item layout, read and written here only. */
export type Item = Record<string, unknown>;

/**
 * Where the organization-level entry keeps the user's schedule, and its write time. The schedule
 * is one JSON string, not a map: resolve reads it for every user, and parsing one string costs a
 * fraction of converting a nested map attribute by attribute (the bench's section 4).
 */
export const SCHEDULE_ATTRIBUTE = 'schedule';
export const SCHEDULE_TIME_ATTRIBUTE = 'scheduleAt';

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
    ...(typeof item[SCHEDULE_TIME_ATTRIBUTE] === 'string' ? { scheduleAt: item[SCHEDULE_TIME_ATTRIBUTE] } : {}),
  };
};

/** itemToEntry plus the markers a migration or an erasure leaves on the entries it writes. */
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

/** Whether a stored item holds anything: a channel in some layer, or a schedule. */
export const hasChannel = (item: Item): boolean => !isTombstone(itemToEntry(item));

/** A tombstone is no entry to a reader. */
export const readableEntries = (entries: StoredEntry[]): StoredEntry[] =>
  entries.filter((entry) => !isTombstone(entry));

/**
 * The whole entry as one conditional put, replacing what is there if the target still has
 * `expected` (null: is still absent): the item layout of a written entry, in one place (the
 * migration store's putEntryIf, and a migration's copy in a transaction with its source's stamp).
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
