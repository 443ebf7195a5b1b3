import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dependencyTimeoutMs } from './environment.js';
import { MARSHALL_OPTIONS } from './marshall-options.js';

/**
 * AWS clients, built once per process (module scope) and reused across invocations.
 * The SDK's standard retry mode backs off on throttling and 5xx; the attempt count is raised
 * from its default of 3 so that short throttling bursts do not reach the caller.
 * Endpoints follow the SDK's own AWS_ENDPOINT_URL_* variables (used by the local server).
 * The SQS client has its own module (sqs-client.ts): a function that never sends a message
 * neither bundles nor builds it at cold start. In Lambda, the SDK passes the invocation's
 * trace header on with each call, so DynamoDB, SQS and EventBridge join the function's trace.
 */
export const MAX_ATTEMPTS = 6;

/** The options of every client's HTTP handler, read once per process (at import, like the rest of the environment). */
export const requestHandlerOptions = (env?: NodeJS.ProcessEnv) => {
  const timeoutMs = dependencyTimeoutMs(env);
  return { connectionTimeout: timeoutMs, socketTimeout: timeoutMs };
};
export const requestHandler = requestHandlerOptions();

export const createDocumentClient = (client = new DynamoDBClient({ maxAttempts: MAX_ATTEMPTS, requestHandler })) =>
  DynamoDBDocumentClient.from(client, { marshallOptions: MARSHALL_OPTIONS });

export const documentClient = createDocumentClient();
