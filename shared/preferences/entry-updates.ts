import { CHANNELS, type Channel, type DeliverySetting } from '#shared/api/channels.js';
import type { Condition, ItemDelete, ItemWrite } from '#shared/platform/item-write.js';
import type { Schedule } from '#shared/schedules/schema.js';
import {
  ATTRIBUTION_ATTRIBUTES,
  attributionItem,
  type ChangeAttribution,
  type ChangeCause,
} from './change-attribution.js';
import { SCHEDULE_ATTRIBUTE, SCHEDULE_TIME_ATTRIBUTE } from './entry-item.js';
import { entryTableKey } from './keys.js';
import { CATEGORY_SET_ATTRIBUTE, channelAttribute, channelTimeAttribute, MAX_CATEGORY_LAYERS } from './layers.js';
import { type EntryKey, scopeOf } from './model.js';
import type { ErasureMarker, UnchangedEntry, WriteMeta } from './store.js';
import { TOMBSTONE_TTL_ATTRIBUTE, tombstoneExpiry } from './tombstone.js';

/*
 * The conditional writes of one entry, as data (item-write.ts renders them): what set, reset,
 * schedules, links, migrations and erasures change in an entry, and on which conditions.
 */

/** A channel's new value, or null to remove it. */
export type ChannelChanges = Partial<Record<Channel, DeliverySetting | null>>;

export interface ChannelWrite {
  key: EntryKey;
  changes: ChannelChanges;
  meta: WriteMeta;
  /** Also move the entry's updatedAt (only when it is not newer than this write). */
  entryTime: boolean;
  /** Reset: never create the entry. */
  mustExist: boolean;
}

/**
 * A channel write of one entry (item-write.ts renders it as an UpdateItem). Each
 * named channel is stamped with the write's time, on the condition that its stored stamp is not
 * newer: a write that lands late (a request frozen past its deadline and resumed) cannot replace
 * a newer value.
 */
export const channelWrite = ({ key, changes, meta, entryTime, mustExist }: ChannelWrite): ItemWrite => {
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
    evidence: meta.evidence,
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
 * The write that replaces (or, with null, removes) the schedule of a user's organization-level
 * entry, creating the entry for a schedule. Like a channel, the schedule carries its write time:
 * a write stamped older than the stored one is refused (a late write never undoes a newer one).
 * `entryTime` also moves the entry's updatedAt, when not newer.
 */
export const scheduleWrite = (
  key: EntryKey,
  schedule: Schedule | null,
  meta: WriteMeta,
  entryTime: boolean,
): ItemWrite => {
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
export const isFullWithout = (item: Record<string, { SS?: string[] }> | undefined, category: string): boolean => {
  const held = item?.[CATEGORY_SET_ATTRIBUTE]?.SS ?? [];
  return held.length >= MAX_CATEGORY_LAYERS && !held.includes(category);
};

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
export const emptiedWrite = (key: EntryKey, updatedAt: string): { update: ItemWrite } | { delete: ItemDelete } => {
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
