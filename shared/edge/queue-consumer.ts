import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { Delivery } from '#shared/jobs/delivery-policy.js';
import { logger } from '#shared/platform/logger.js';
import { observed } from './observed.js';

export interface QueueConsumer<T> {
  /** The schema of a message body: a body it refuses can never succeed, so it is dropped (logged), not retried. */
  message: z.ZodMiniType<T>;
  /** What a message is, in the log line of a dropped one ("migration message"). */
  name: string;
  /** The queue's maxReceiveCount: the delivery with this receive count is the last attempt. */
  maxReceiveCount: number;
  handle: (message: T, delivery: Delivery) => Promise<unknown>;
}

const parse = <T>(schema: z.ZodMiniType<T>, body: string): T | undefined => {
  try {
    const parsed = schema.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};

/**
 * An SQS consumer (Lambda's event source): each record is handled on its own; one that fails is
 * reported in batchItemFailures (retried by the queue, then dead-lettered), never the batch.
 * The handler learns its delivery: the receive count and the time left in the invocation.
 */
export const queueConsumer = <T>({ message, name, maxReceiveCount, handle }: QueueConsumer<T>) => {
  const recordHandler = async (record: SQSRecord, context?: Context): Promise<void> => {
    const parsed = parse(message, record.body);
    if (parsed === undefined) {
      logger.error(`Invalid ${name} dropped`, { messageId: record.messageId });
      return;
    }
    const remaining = context?.getRemainingTimeInMillis;
    await handle(parsed, {
      ...(typeof remaining === 'function' ? { remainingTimeMs: () => remaining.call(context) } : {}),
      receiveCount: Number(record.attributes?.ApproximateReceiveCount) || 1,
      maxReceiveCount,
    });
  };
  return observed<SQSEvent, SQSBatchResponse>().handler(async (event, context) => {
    // A processor per invocation: it keeps the batch's state, and the local twin may run
    // invocations of one module concurrently.
    const processor = new BatchProcessor(EventType.SQS);
    return processPartialResponse(event, recordHandler, processor, { context, throwOnFullBatchFailure: false });
  });
};
