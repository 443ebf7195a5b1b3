import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '#shared/platform/logger.js';
import { erasureMessage } from './schemas.js';
import { type ErasureWorkerDeps, runErasure } from './worker.js';

export interface ErasureConsumerOptions {
  deps: ErasureWorkerDeps;
  /** The queue's maxReceiveCount: the delivery with this receive count is the last attempt. */
  maxReceiveCount: number;
}

const parseMessage = (record: SQSRecord): string | undefined => {
  try {
    const parsed = erasureMessage.safeParse(JSON.parse(record.body));
    return parsed.success ? parsed.data.erasureId : undefined;
  } catch {
    return undefined;
  }
};

/** The SQS handler of the erasure queue: one erasure per record, failures reported per record. */
export const createErasureConsumerHandler = ({ deps, maxReceiveCount }: ErasureConsumerOptions) => {
  const recordHandler = async (record: SQSRecord, context?: Context): Promise<void> => {
    const erasureId = parseMessage(record);
    if (erasureId === undefined) {
      logger.error('Invalid erasure message dropped', { messageId: record.messageId });
      return;
    }
    const remaining = context?.getRemainingTimeInMillis;
    await runErasure(deps, erasureId, {
      ...(typeof remaining === 'function' ? { remainingTimeMs: () => remaining.call(context) } : {}),
      receiveCount: Number(record.attributes?.ApproximateReceiveCount) || 1,
      maxReceiveCount,
    });
  };
  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    logger.addContext(context);
    const processor = new BatchProcessor(EventType.SQS);
    return processPartialResponse(event, recordHandler, processor, { context, throwOnFullBatchFailure: false });
  };
};
