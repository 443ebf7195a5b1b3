import { SQSClient } from '@aws-sdk/client-sqs';
import { MAX_ATTEMPTS, requestHandler } from './aws-clients.js';

/**
 * The SQS client, built once per process (module scope), with the same retry and socket
 * settings as the DynamoDB client. Only the functions that send messages import this module.
 */
export const sqsClient = new SQSClient({ maxAttempts: MAX_ATTEMPTS, requestHandler });
