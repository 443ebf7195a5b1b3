import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { observed } from './observed.js';

/**
 * A DynamoDB stream consumer (Lambda's event source mapping, with partial batch responses): the
 * batch handler answers the records that failed, from which the event source retries.
 */
export const streamConsumer = (
  handleBatch: (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>,
) => observed<DynamoDBStreamEvent, DynamoDBBatchResponse>().handler(handleBatch);
