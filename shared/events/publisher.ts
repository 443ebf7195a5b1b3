import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { changesOf, ENTRY_CHANGE_RECORDS } from '#shared/history/from-stream.js';
import { historyExpiry } from '#shared/history/retention.js';
import type { HistoryStore, HistoryWrite } from '#shared/history/store.js';
import { logger } from '#shared/platform/logger.js';
import type { StreamFilter, TableName } from '#shared/platform/route.js';
import type { EntryKey } from '#shared/preferences/model.js';
import { PUT_EVENTS_LIMIT } from './eventbridge-bus.js';
import { type BusEvent, configChangedEvent, type EventBus } from './events.js';
import { JOB_EVENT_RECORDS, jobEventOf } from './job-events.js';
import { POLICY_EVENT_RECORDS, policyEventOf } from './policy-events.js';

export interface PublisherDeps {
  history: HistoryStore;
  bus: EventBus;
  /** The table names behind the streams: a record's table is named in its eventSourceARN. */
  tables: { config: string; migrations: string };
  retentionDays: number;
}

/** `arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>` -> `<name>`. */
export const tableOfArn = (arn: string | undefined): string | undefined => /:table\/([^/]+)\//.exec(arn ?? '')?.[1];

/** What one stream record asks for, in order: history to store or to erase (an entry's), and events. */
export interface RecordPlan {
  steps: ({ store: HistoryWrite } | { erase: EntryKey })[];
  events: BusEvent[];
}

/**
 * One stream record, read: a config change is stored in the history (its key comes from the
 * record, so a redelivery stores the same item) and becomes an event, as does a policy's new
 * version; a finished migration becomes an event. An erasure's change is not stored: it removes
 * that entry's history instead (every earlier change of the entry is before it in the stream,
 * so none is stored after it). Pure: the handler does the steps.
 */
export const planRecord = (
  deps: Pick<PublisherDeps, 'tables' | 'retentionDays'>,
  record: DynamoDBRecord,
): RecordPlan => {
  const table = tableOfArn(record.eventSourceARN);
  if (table === deps.tables.config) {
    const policyEvent = policyEventOf(record);
    if (policyEvent) return { steps: [], events: [policyEvent] };
    const recorded = changesOf(record);
    const erased = recorded[0]?.change;
    return {
      // A record is one entry's change, its cause the same for every layer: an erasure of a
      // channel layer, categories and a schedule erases the entry's history once.
      steps:
        erased?.cause === 'erasure'
          ? [{ erase: { organizationId: erased.organizationId, userId: erased.userId, documentId: erased.documentId } }]
          : recorded.map((one) => ({
              store: { recorded: one, expiresAt: historyExpiry(one.change.changedAt, deps.retentionDays) },
            })),
      events: recorded.map(({ change }) => configChangedEvent(change)),
    };
  }
  if (table === deps.tables.migrations) {
    const event = jobEventOf(record);
    return { steps: [], events: event ? [event] : [] };
  }
  logger.warn('Stream record of an unknown table ignored', { eventSourceARN: record.eventSourceARN });
  return { steps: [], events: [] };
};

/**
 * The records each stream invokes the publisher with (its event source filters): those planRecord
 * can plan anything for. Any other record would be planned as nothing.
 */
export const PUBLISHER_STREAM_FILTERS = {
  config: [...ENTRY_CHANGE_RECORDS, POLICY_EVENT_RECORDS],
  migrations: [JOB_EVENT_RECORDS],
} as const satisfies Partial<Record<TableName, readonly StreamFilter[]>>;

/** The first record of a batch whose plan or history failed: it and every later record fail. */
interface RecordFailure {
  index: number;
  error: unknown;
}

/**
 * Does the records' history steps in stream order, with as few calls as order allows: the changes
 * to store are gathered (BatchWriteItem, 25 to a call) until an erasure of an entry's history,
 * which waits for every change before it to be stored; consecutive erasures of one user's entries
 * (an erasure job deletes a user's entries in a row) are gathered into one deletion, which reads
 * the user's partition consistently, so that the changes stored a moment before, by this batch or
 * an earlier one, go too. Stops at the first record that fails.
 */
const applyHistory = async (
  history: HistoryStore,
  plans: readonly (RecordPlan | RecordFailure)[],
): Promise<RecordFailure | undefined> => {
  let pending: { write: HistoryWrite; index: number }[] = [];
  let erasing: { organizationId: string; userId: string; documentIds: (string | null)[]; index: number } | undefined;
  const storePending = async (): Promise<RecordFailure | undefined> => {
    const writes = pending;
    pending = [];
    if (writes.length === 0) return undefined;
    const failed = await history.recordAll(writes.map(({ write }) => write));
    return failed && { index: (writes[failed.index] as { index: number }).index, error: failed.error };
  };
  const eraseGathered = async (): Promise<RecordFailure | undefined> => {
    const erase = erasing;
    erasing = undefined;
    if (!erase) return undefined;
    try {
      await history.deleteEntryHistory(erase.organizationId, erase.userId, erase.documentIds);
      return undefined;
    } catch (error) {
      // The retry starts again from the first erasure gathered (deleting again is harmless).
      return { index: erase.index, error };
    }
  };
  const flush = async () => (await storePending()) ?? eraseGathered();
  for (const [index, plan] of plans.entries()) {
    if ('error' in plan) return (await flush()) ?? plan;
    for (const step of plan.steps) {
      if ('store' in step) {
        const failed = await eraseGathered();
        if (failed) return failed;
        pending.push({ write: step.store, index });
        continue;
      }
      const failed = await storePending();
      if (failed) return failed;
      const { organizationId, userId, documentId } = step.erase;
      if (erasing && (erasing.organizationId !== organizationId || erasing.userId !== userId)) {
        const failedErase = await eraseGathered();
        if (failedErase) return failedErase;
      }
      erasing ??= { organizationId, userId, documentIds: [], index };
      erasing.documentIds.push(documentId);
    }
  }
  return flush();
};

class EarlierRecordFailed extends Error {
  override readonly name = 'EarlierRecordFailed';
}

/**
 * The stream handler (Lambda's DynamoDB event source, or the local twin's poller): the records'
 * history in stream order, then their events. Once a record fails, the later ones of the batch
 * fail too, unprocessed: the event source retries from the first failure (partial batch
 * response), so the changes of an entry are always handled in their order. Events are published
 * after the history, 10 per call; those that cannot be published fail their record and the
 * later ones (published again on the retry: delivery is at least once, and each event's id stays
 * the same).
 */
export const createPublisherHandler = (deps: PublisherDeps) => {
  return async (event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> => {
    const plans = event.Records.map((record, index): RecordPlan | RecordFailure => {
      try {
        return planRecord(deps, record);
      } catch (error) {
        return { index, error };
      }
    });
    const failure = await applyHistory(deps.history, plans);
    const failedAt = failure?.index ?? plans.length;
    const handled = plans.slice(0, failedAt).map((plan, index) => ({
      record: event.Records[index] as DynamoDBRecord,
      events: (plan as RecordPlan).events,
    }));
    // Powertools answers the partial batch response from what each record's handler throws.
    const indexOf = new Map(event.Records.map((record, index) => [record, index]));
    const recordHandler = async (record: DynamoDBRecord): Promise<void> => {
      const index = indexOf.get(record) ?? 0;
      if (index < failedAt) return;
      throw index === failedAt ? failure?.error : new EarlierRecordFailed('An earlier record of the batch failed');
    };
    const processor = new BatchProcessor(EventType.DynamoDBStreams);
    const response = await processPartialResponse(event, recordHandler, processor, {
      ...(context ? { context } : {}),
      processInParallel: false,
      throwOnFullBatchFailure: false,
    });
    // A copy: with no failure, Powertools answers a module-level default object, which a push
    // would change for every later batch of this instance.
    const batchItemFailures = [...response.batchItemFailures];
    const reported = new Set(batchItemFailures.map((failed) => failed.itemIdentifier));
    for (const { record } of await publishInOrder(deps.bus, handled)) {
      const sequenceNumber = record.dynamodb?.SequenceNumber;
      if (sequenceNumber && !reported.has(sequenceNumber)) batchItemFailures.push({ itemIdentifier: sequenceNumber });
    }
    return { batchItemFailures };
  };
};

/** Publishes the records' events in order, 10 per call; answers the records from the first one not fully published on. */
const publishInOrder = async <T extends { events: BusEvent[] }>(bus: EventBus, handled: T[]): Promise<T[]> => {
  const queue = handled.flatMap((item, index) => item.events.map((event) => ({ event, index })));
  for (let start = 0; start < queue.length; start += PUT_EVENTS_LIMIT) {
    const chunk = queue.slice(start, start + PUT_EVENTS_LIMIT);
    try {
      await bus.publish(chunk.map(({ event }) => event));
    } catch (error) {
      logger.error('Events could not be published', { error });
      return handled.slice(chunk[0]?.index ?? 0);
    }
  }
  return [];
};
