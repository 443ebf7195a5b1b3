import type { DynamoDBRecord } from 'aws-lambda';
import { imageOf } from '#shared/history/from-stream.js';
import type { StreamFilter } from '#shared/platform/route.js';
import { policyOfItem } from '#shared/policy/item.js';
import { isPolicyKey, POLICY_PK_PREFIX } from '#shared/policy/keys.js';
import { type BusEvent, DETAIL_TYPES, EVENT_SOURCE } from './events.js';

/** The records of the config table policyEventOf can announce anything of: a policy item written. */
export const POLICY_EVENT_RECORDS: StreamFilter = {
  eventName: ['INSERT', 'MODIFY'],
  dynamodb: { NewImage: { pk: { S: [{ prefix: POLICY_PK_PREFIX }] } } },
};

/**
 * `Notification Policy Changed`, from the config table's stream: a policy item written with a
 * new version. Its id names the organization and the version, so a redelivered record announces
 * the same event, and a consumer deduplicates on it.
 */
export const policyEventOf = (record: DynamoDBRecord): BusEvent | undefined => {
  if (record.eventName === 'REMOVE') return undefined;
  const after = imageOf(record.dynamodb?.NewImage);
  if (!after || !isPolicyKey(after.pk) || typeof after.organizationId !== 'string') return undefined;
  const before = imageOf(record.dynamodb?.OldImage);
  const version = Number(after.version);
  if (before !== undefined && Number(before.version) === version) return undefined;
  return {
    detailType: DETAIL_TYPES.policyChanged,
    source: EVENT_SOURCE,
    detail: {
      id: `policy:${after.organizationId}:${version}`,
      organizationId: after.organizationId,
      version,
      before: policyOfItem(before),
      after: policyOfItem(after),
      changedAt: after.updatedAt,
      changedBy: after.updatedBy,
    },
  };
};
