import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { traced } from './tracing.js';

/**
 * AWS clients, built once per process (module scope) and reused across invocations.
 * The SDK's standard retry mode backs off on throttling and 5xx; the attempt count is raised
 * from its default of 3 so that short throttling bursts do not reach the caller.
 * Endpoints follow the SDK's own AWS_ENDPOINT_URL_* variables (used by the local server).
 * The SQS client has its own module (sqs-client.ts): a function that never sends a message
 * neither bundles nor builds it at cold start. In Lambda, each call is an X-Ray subsegment
 * (tracing.ts).
 */
export const MAX_ATTEMPTS = 6;

/**
 * A connection that cannot be opened, or stops answering, is given up after this long and the
 * attempt retried (the SDK's own socket default is 300 s): one silent socket must not hold a
 * request until the function's timeout. Six attempts stay within the 10 s API function timeout.
 */
export const CONNECTION_TIMEOUT_MS = 1_000;
export const SOCKET_TIMEOUT_MS = 1_000;
export const requestHandler = { connectionTimeout: CONNECTION_TIMEOUT_MS, socketTimeout: SOCKET_TIMEOUT_MS };

export const createDocumentClient = (
  client = traced(new DynamoDBClient({ maxAttempts: MAX_ATTEMPTS, requestHandler })),
) => DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

export const documentClient = createDocumentClient();
