import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { changesOf } from '#shared/history/from-stream.js';
import { historyExpiry } from '#shared/history/retention.js';
import type { HistoryStore } from '#shared/history/store.js';
import { logger } from '#shared/platform/logger.js';
import { PUT_EVENTS_LIMIT } from './eventbridge-bus.js';
import { type BusEvent, configChangedEvent, type EventBus } from './events.js';
import { jobEventOf } from './job-events.js';
import { policyEventOf } from './policy-events.js';

export interface PublisherDeps {
  history: HistoryStore;
  bus: EventBus;
  /** The table names behind the streams: a record's table is named in its eventSourceARN. */
  tables: { config: string; migrations: string };
  retentionDays: number;
}

/** `arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>` -> `<name>`. */
export const tableOfArn = (arn: string | undefined): string | undefined => /:table\/([^/]+)\//.exec(arn ?? '')?.[1];

/**
 * One stream record: a config change is stored in the history (once: the key comes from the
 * record) and becomes an event, as does a policy's new version; a finished migration becomes an event. Answers the events to
 * publish. An erasure's change is not stored: it removes that entry's history instead (every
 * earlier change of the entry is before it in the stream, so none is stored after it).
 */
export const handleRecord = async (deps: PublisherDeps, record: DynamoDBRecord): Promise<BusEvent[]> => {
  const table = tableOfArn(record.eventSourceARN);
  if (table === deps.tables.config) {
    const policyEvent = policyEventOf(record);
    if (policyEvent) return [policyEvent];
    const recorded = changesOf(record);
    for (const one of recorded) {
      const { change } = one;
      if (change.cause === 'erasure') {
        await deps.history.deleteEntryHistory(change.organizationId, change.userId, change.documentId);
      } else {
        await deps.history.record(one, historyExpiry(change.changedAt, deps.retentionDays));
      }
    }
    return recorded.map(({ change }) => configChangedEvent(change));
  }
  if (table === deps.tables.migrations) {
    const event = jobEventOf(record);
    return event ? [event] : [];
  }
  logger.warn('Stream record of an unknown table ignored', { eventSourceARN: record.eventSourceARN });
  return [];
};

class EarlierRecordFailed extends Error {
  override readonly name = 'EarlierRecordFailed';
}

/**
 * The stream handler (Lambda's DynamoDB event source, or the local twin's poller): records in
 * stream order, one at a time. Once one fails, the later ones of the batch fail too, unprocessed:
 * the event source retries from the first failure (partial batch response), so the changes of an
 * entry are always handled in their order. Events are published after the records, 10 per call;
 * those that cannot be published fail their record and the later ones (published again on the
 * retry: delivery is at least once, and each event's id stays the same).
 */
export const createPublisherHandler = (deps: PublisherDeps) => {
  return async (event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> => {
    const processor = new BatchProcessor(EventType.DynamoDBStreams);
    const handled: { record: DynamoDBRecord; events: BusEvent[] }[] = [];
    let failed = false;
    const recordHandler = async (record: DynamoDBRecord): Promise<void> => {
      if (failed) throw new EarlierRecordFailed('An earlier record of the batch failed');
      try {
        handled.push({ record, events: await handleRecord(deps, record) });
      } catch (error) {
        failed = true;
        throw error;
      }
    };
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
