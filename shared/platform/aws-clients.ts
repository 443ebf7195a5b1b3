import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { ENV, parseEnv } from './environment.js';
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
 * The deployed functions keep this default; the local twin sets DEPENDENCY_TIMEOUT_MS longer
 * (local/runtime.ts), since DynamoDB Local on a busy laptop can take more than a second and a
 * retry there only adds to its load. Either way a route's deadline ends a hung call in 503.
 */
export const DEFAULT_DEPENDENCY_TIMEOUT_MS = 1_000;
export const MAX_DEPENDENCY_TIMEOUT_MS = 60_000;

export const dependencyTimeoutMs = (env: NodeJS.ProcessEnv = process.env): number =>
  parseEnv(
    ENV.dependencyTimeoutMs,
    z._default(
      z.pipe(z.coerce.number(), z.int().check(z.minimum(1), z.maximum(MAX_DEPENDENCY_TIMEOUT_MS))),
      DEFAULT_DEPENDENCY_TIMEOUT_MS,
    ),
    `a whole number of milliseconds from 1 to ${MAX_DEPENDENCY_TIMEOUT_MS}`,
    env,
  );

/** The options of every client's HTTP handler, read once per process (at import, like the rest of the environment). */
export const requestHandlerOptions = (env: NodeJS.ProcessEnv = process.env) => {
  const timeoutMs = dependencyTimeoutMs(env);
  return { connectionTimeout: timeoutMs, socketTimeout: timeoutMs };
};
export const requestHandler = requestHandlerOptions();

export const createDocumentClient = (
  client = traced(new DynamoDBClient({ maxAttempts: MAX_ATTEMPTS, requestHandler })),
) => DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

export const documentClient = createDocumentClient();
