import {
  MIGRATION_CONSUMER_FUNCTION,
  MIGRATION_MAX_RECEIVE_COUNT,
  timeoutSecondsOf,
  WEBHOOK_MAX_RECEIVE_COUNT,
} from '#service/functions.js';
import type { LocalSqs } from './queue/local-sqs.js';
import type { LocalQueue } from './queue/queue.js';

export const MIGRATION_QUEUE_NAME = 'migrations';
export const MIGRATION_DLQ_NAME = 'migrations-dlq';
export const ERASURE_QUEUE_NAME = 'erasures';
export const ERASURE_DLQ_NAME = 'erasures-dlq';
export const WEBHOOK_QUEUE_NAME = 'webhooks';
export const WEBHOOK_DLQ_NAME = 'webhooks-dlq';
export const EXPORT_QUEUE_NAME = 'exports';
export const EXPORT_DLQ_NAME = 'exports-dlq';
export const IMPORT_QUEUE_NAME = 'imports';
export const IMPORT_DLQ_NAME = 'imports-dlq';
/** The change publisher's on-failure destination: descriptions of stream batches given up on. */
export const PUBLISHER_FAILURES_QUEUE_NAME = 'change-publisher-failures';
/** Function and queue settings are the deployed ones (service/functions.ts), which the stack reads too. */
export const DEFAULT_MAX_RECEIVE_COUNT = MIGRATION_MAX_RECEIVE_COUNT;
export const DEFAULT_CONSUMER_TIMEOUT_MS = timeoutSecondsOf(MIGRATION_CONSUMER_FUNCTION) * 1000;
/** Locally a failed message is retried after 2 s instead of the deployed visibility timeout (6 min). */
export const DEFAULT_RETRY_DELAY_MS = 2_000;

/** How the twin's queues deliver (the local runtime's `queue` option). */
export interface QueueDelivery {
  maxReceiveCount?: number;
  retryDelayMs?: number;
  consumerTimeoutMs?: number;
  concurrency?: number;
}

/** The service's queues on the SQS twin, each work queue with its dead letters. */
export interface ServiceQueues {
  /** The migration queue and its dead letters. */
  queue: LocalQueue;
  deadLetterQueue: LocalQueue;
  /** The erasure queue and its dead letters. */
  erasureQueue: LocalQueue;
  erasureDeadLetterQueue: LocalQueue;
  /** The webhooks queue (the bus's events, by its rule, and the dispatcher's retries) and its dead letters. */
  webhookQueue: LocalQueue;
  webhookDeadLetterQueue: LocalQueue;
  /** The export queue and its dead letters. */
  exportQueue: LocalQueue;
  exportDeadLetterQueue: LocalQueue;
  /** The import queue (uploads' notices and the engine's messages) and its dead letters. */
  importQueue: LocalQueue;
  importDeadLetterQueue: LocalQueue;
  /** Where the stream twin describes the batches the change publisher failed for good. */
  publisherFailureQueue: LocalQueue;
  /** The receives after which a message of the migration, erasure, export or import queue is a dead letter. */
  maxReceiveCount: number;
}

/** Creates the service's queues on `sqs`, in the order its snapshot and `queues()` list them. */
export const createServiceQueues = (sqs: LocalSqs, delivery: QueueDelivery): ServiceQueues => {
  const maxReceiveCount = delivery.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT;
  const retryDelayMs = delivery.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  // The migration, erasure, export and import queues: the same delivery settings.
  const withDeadLetters = (name: string, deadLetterName: string, receives = maxReceiveCount) => {
    const deadLetterQueue = sqs.createQueue(deadLetterName);
    const workQueue = sqs.createQueue(name, {
      deadLetter: { queue: deadLetterQueue, maxReceiveCount: receives },
      retryDelayMs,
    });
    return [workQueue, deadLetterQueue] as const;
  };
  const [queue, deadLetterQueue] = withDeadLetters(MIGRATION_QUEUE_NAME, MIGRATION_DLQ_NAME);
  const [erasureQueue, erasureDeadLetterQueue] = withDeadLetters(ERASURE_QUEUE_NAME, ERASURE_DLQ_NAME);
  // The webhooks queue's receive count is its own (shared/webhooks/model.ts), whatever the `queue` option says.
  const [webhookQueue, webhookDeadLetterQueue] = withDeadLetters(
    WEBHOOK_QUEUE_NAME,
    WEBHOOK_DLQ_NAME,
    WEBHOOK_MAX_RECEIVE_COUNT,
  );
  const [exportQueue, exportDeadLetterQueue] = withDeadLetters(EXPORT_QUEUE_NAME, EXPORT_DLQ_NAME);
  const [importQueue, importDeadLetterQueue] = withDeadLetters(IMPORT_QUEUE_NAME, IMPORT_DLQ_NAME);
  const publisherFailureQueue = sqs.createQueue(PUBLISHER_FAILURES_QUEUE_NAME);
  return {
    queue,
    deadLetterQueue,
    erasureQueue,
    erasureDeadLetterQueue,
    webhookQueue,
    webhookDeadLetterQueue,
    exportQueue,
    exportDeadLetterQueue,
    importQueue,
    importDeadLetterQueue,
    publisherFailureQueue,
    maxReceiveCount,
  };
};
