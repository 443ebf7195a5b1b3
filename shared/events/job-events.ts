import type { DynamoDBRecord } from 'aws-lambda';
import { erasureJob } from '#shared/erasure/kind.js';
import { imageOf } from '#shared/history/from-stream.js';
import { RECORD_SK } from '#shared/jobs/keys.js';
import { migrationJob } from '#shared/migration/kind.js';
import type { MigrationRecord } from '#shared/migration/model.js';
import type { StreamFilter } from '#shared/platform/route.js';
import { type BusEvent, DETAIL_TYPES, EVENT_SOURCE } from './events.js';

/*
 * Events from the migrations table's stream: a migration record that reaches completed or failed
 * becomes `Document Migration Completed` or `Failed`, its detail the status the status route
 * answers; an erasure record that completes becomes `User Erased`.
 */

const FINISHED = { completed: DETAIL_TYPES.migrationCompleted, failed: DETAIL_TYPES.migrationFailed } as const;

/**
 * The records of the migrations table jobEventOf can announce anything of: a job record written
 * with a finished status (locks, leases, progress and idempotency keys never invoke the publisher).
 */
export const JOB_EVENT_RECORDS: StreamFilter = {
  eventName: ['INSERT', 'MODIFY'],
  dynamodb: { NewImage: { sk: { S: [RECORD_SK] }, status: { S: ['completed', 'failed'] } } },
};

/** Whether a stored item is the record of a job of the kind with this key prefix. */
const isRecordOf = ({ keyPrefix }: { keyPrefix: string }, item: Record<string, unknown> | undefined): boolean =>
  typeof item?.pk === 'string' && item.pk.startsWith(keyPrefix) && item.sk === RECORD_SK;

/** The event a stream record of the migrations table announces, if any (locks and progress announce nothing). */
export const jobEventOf = (record: DynamoDBRecord): BusEvent | undefined => {
  if (record.eventName === 'REMOVE') return undefined;
  const after = imageOf(record.dynamodb?.NewImage);
  const before = imageOf(record.dynamodb?.OldImage);
  if (after && isRecordOf(erasureJob, after)) {
    if (after.status !== 'completed' || before?.status === 'completed') return undefined;
    const { erasureId, organizationId, userId, erased } = after as Record<string, string | number>;
    return {
      detailType: DETAIL_TYPES.userErased,
      source: EVENT_SOURCE,
      detail: { id: `erasure:${erasureId}:completed`, organizationId, userId, erasureId, erased: Number(erased ?? 0) },
    };
  }
  if (!after || !isRecordOf(migrationJob, after)) return undefined;
  const status = after.status as keyof typeof FINISHED;
  if (!(status in FINISHED) || before?.status === status) return undefined;
  // A finished record is never abandoned: the view is the record's.
  const view = migrationJob.view(after as unknown as MigrationRecord, false);
  return {
    detailType: FINISHED[status],
    source: EVENT_SOURCE,
    // One migration finishes once: its id and final status name the event.
    detail: { id: `migration:${view.migrationId}:${status}`, ...view },
  };
};
