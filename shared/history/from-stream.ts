import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { CHANNELS } from '#shared/api/channels.js';
import { EVIDENCE_ATTRIBUTE, storedEvidence } from '#shared/consent/evidence.js';
import type { StreamFilter } from '#shared/platform/route.js';
import { ATTRIBUTION_ATTRIBUTES, CHANGE_CAUSES, type ChangeCause } from '#shared/preferences/change-attribution.js';
import { categoryLayersOf } from '#shared/preferences/layers.js';
import { type ChannelConfig, scopeOf } from '#shared/preferences/model.js';
import type { Schedule } from '#shared/schedules/schema.js';
import type { HistoryChange } from './results.js';

/*
 * From a record of the config table's change stream to the change it records (docs/design.md,
 * "Change history"). Pure: the publisher (publisher.ts) stores and announces what this returns.
 */

type Item = Record<string, unknown>;

/** A stream image as a plain object (Lambda's and the SDK's attribute values have one shape). */
export const imageOf = (image: unknown): Item | undefined =>
  image ? unmarshall(image as Parameters<typeof unmarshall>[0]) : undefined;

/** The channel values of an item: what a reader sees. A tombstone and no item both give {}. */
export const channelsOf = (item: Item | undefined): ChannelConfig => {
  const config: ChannelConfig = {};
  for (const channel of CHANNELS) {
    const value = item?.[channel];
    if (typeof value === 'string') config[channel] = value as ChannelConfig[typeof channel];
  }
  return config;
};

const sameChannels = (a: ChannelConfig, b: ChannelConfig): boolean =>
  CHANNELS.every((channel) => a[channel] === b[channel]);

const isCause = (value: unknown): value is ChangeCause => CHANGE_CAUSES.includes(value as ChangeCause);

/** A history item plus where it goes: the stream's sequence number orders and deduplicates it. */
export interface RecordedChange {
  change: HistoryChange;
  sequenceNumber: string;
}

/** Each layer of an item, the all-categories one keyed by null (layers.ts). */
const layersOf = (item: Item | undefined): Map<string | null, ChannelConfig> => {
  const layers = new Map<string | null, ChannelConfig>([[null, channelsOf(item)]]);
  if (item) for (const [category, layer] of Object.entries(categoryLayersOf(item))) layers.set(category, layer.config);
  return layers;
};

const ENTRY_IMAGE = { organizationId: { S: [{ exists: true }] }, userId: { S: [{ exists: true }] } };

/** The records of the config table changesOf can record anything of: an image of a user's entry, before or after. */
export const ENTRY_CHANGE_RECORDS: readonly StreamFilter[] = [
  { dynamodb: { NewImage: ENTRY_IMAGE } },
  { dynamodb: { OldImage: ENTRY_IMAGE } },
];

/**
 * The changes a stream record of the config table records, one per layer of the entry whose
 * values changed (the all-categories layer first, then categories in id order), and one for its
 * schedule when that changed (scope `schedule`, before and after the schedules); none when it
 * changes no channel value (a delete's stamp, a tombstone's expiry, the delete of an emptied
 * entry, a set that repeats the stored values) or is not a config entry.
 *
 * Who and why come from the item the record leaves (its new image), or for a delete from the
 * item as it was: every write stamps them (change-attribution.ts). An item written before the
 * stamps existed is attributed to a set by its `updatedBy` at its `updatedAt`. The evidence comes
 * with them, written by the same write (shared/consent/evidence.ts).
 */
export const changesOf = (record: DynamoDBRecord): RecordedChange[] => {
  const before = imageOf(record.dynamodb?.OldImage);
  const after = record.eventName === 'REMOVE' ? undefined : imageOf(record.dynamodb?.NewImage);
  const item = after ?? before;
  const sequenceNumber = record.dynamodb?.SequenceNumber;
  if (!item || !sequenceNumber || typeof item.organizationId !== 'string' || typeof item.userId !== 'string') {
    return [];
  }
  const beforeLayers = layersOf(before);
  const afterLayers = layersOf(after);
  const categories = [...new Set([...beforeLayers.keys(), ...afterLayers.keys()])]
    .filter((category): category is string => category !== null)
    .sort();
  const stamped = isCause(item[ATTRIBUTION_ATTRIBUTES.cause]);
  const documentId = typeof item.documentId === 'string' ? item.documentId : null;
  const eventId = record.eventID ?? sequenceNumber;
  const attribution = {
    organizationId: item.organizationId,
    userId: item.userId,
    cause: stamped ? (item[ATTRIBUTION_ATTRIBUTES.cause] as ChangeCause) : 'set',
    changedAt: String(stamped ? item[ATTRIBUTION_ATTRIBUTES.changedAt] : item.updatedAt),
    changedBy: String(stamped ? item[ATTRIBUTION_ATTRIBUTES.changedBy] : item.updatedBy),
  };
  const evidence = storedEvidence(item[EVIDENCE_ATTRIBUTE], attribution.cause, attribution.changedBy);
  const erased = attribution.cause === 'erasure';
  const changes: RecordedChange[] = [];
  for (const category of [null, ...categories]) {
    const beforeChannels = beforeLayers.get(category) ?? {};
    const afterChannels = afterLayers.get(category) ?? {};
    if (sameChannels(beforeChannels, afterChannels)) continue;
    changes.push({
      sequenceNumber,
      change: {
        ...attribution,
        evidence,
        changeId: category === null ? eventId : `${eventId}:${category}`,
        documentId,
        scope: scopeOf(documentId),
        category,
        // An erasure publishes no erased value again (docs/api.md, POST /v2/organizations/users/erase).
        before: erased ? null : beforeChannels,
        after: afterChannels,
      },
    });
  }
  const beforeSchedule = scheduleOf(before);
  const afterSchedule = scheduleOf(after);
  if (canonical(beforeSchedule) !== canonical(afterSchedule)) {
    changes.push({
      sequenceNumber,
      change: {
        ...attribution,
        evidence,
        changeId: `${eventId}${SCHEDULE_CHANGE_SUFFIX}`,
        documentId: null,
        scope: 'schedule',
        category: null,
        before: erased ? null : beforeSchedule,
        after: afterSchedule,
      },
    });
  }
  return changes;
};

/** The id suffix of a schedule's change: no category's (`:<category>`) can be it. */
const SCHEDULE_CHANGE_SUFFIX = '#schedule';

/** The schedule an organization-level entry holds (as one JSON string), or null. */
const scheduleOf = (item: Item | undefined): Schedule | null =>
  typeof item?.schedule === 'string' ? (JSON.parse(item.schedule) as Schedule) : null;

/** JSON with sorted keys: a stored map's attribute order says nothing. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
