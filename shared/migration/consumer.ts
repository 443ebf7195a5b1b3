import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '#shared/platform/logger.js';
import { serviceMetrics } from '#shared/platform/metrics.js';
import { traceHandler } from '#shared/platform/tracing.js';
import { migrationMessage } from './schemas.js';
import { runMigration, type WorkerDeps } from './worker.js';

export interface ConsumerOptions {
  deps: WorkerDeps;
  /** The queue's maxReceiveCount: the delivery with this receive count is the last attempt. */
  maxReceiveCount: number;
}

const parseMessage = (record: SQSRecord): string | undefined => {
  try {
    const parsed = migrationMessage.safeParse(JSON.parse(record.body));
    return parsed.success ? parsed.data.migrationId : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The SQS handler: each record is one migration message, processed on its own; a failed record
 * is reported in batchItemFailures (retried by the queue, then dead-lettered), never the batch.
 */
export const createConsumerHandler = ({ deps, maxReceiveCount }: ConsumerOptions) => {
  const recordHandler = async (record: SQSRecord, context?: Context): Promise<void> => {
    const migrationId = parseMessage(record);
    if (migrationId === undefined) {
      // A message that can never succeed is acknowledged, not retried into the dead-letter queue.
      logger.error('Invalid migration message dropped', { messageId: record.messageId });
      return;
    }
    const receiveCount = Number(record.attributes?.ApproximateReceiveCount) || 1;
    const remaining = context?.getRemainingTimeInMillis;
    await runMigration(deps, migrationId, {
      ...(typeof remaining === 'function' ? { remainingTimeMs: () => remaining.call(context) } : {}),
      receiveCount,
      maxReceiveCount,
    });
  };
  const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    logger.addContext(context);
    // A processor per invocation: it keeps the batch's state, and the local runtime may run
    // invocations of one module concurrently (Lambda never does).
    const processor = new BatchProcessor(EventType.SQS);
    return processPartialResponse(event, recordHandler, processor, { context, throwOnFullBatchFailure: false });
  };
  // The same tracing and metrics as the HTTP functions (shared/lambda/http-handler.ts).
  return middy<SQSEvent, SQSBatchResponse, Error, Context>()
    .use(traceHandler())
    .use(logMetrics(serviceMetrics()))
    .handler(handler);
};
