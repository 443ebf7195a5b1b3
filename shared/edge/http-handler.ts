import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod';
import type { Authenticator } from '#shared/auth/authenticator.js';
import { type Credential, grantsOrganization, permissionDenied } from '#shared/auth/credential.js';
import { logger } from '#shared/platform/logger.js';
import { serviceMetrics } from '#shared/platform/metrics.js';
import { traceHandler } from '#shared/platform/tracing.js';
import { type ApiContext, type CallableResult, callableApi, DEADLINE_MARGIN_MS } from './callable-api.js';
import { parseCallableBody } from './parse-body.js';

export interface RouteInput<T> {
  data: T;
  credential: Credential;
  /** Aborted at the route's deadline (Middy's early timeout): stop issuing writes then. */
  signal: AbortSignal;
}

/** What the wiring needs of an operation (shared/api/operations.ts): its request schema and message. */
export interface RoutedOperation<S extends z.core.$ZodType<{ organizationId: string }>> {
  request: S;
  message: string;
}

export type HttpHandler = (
  event: APIGatewayProxyEventV2,
  context: ApiContext,
) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * Builds an operation's handler: the shared middleware chain around its domain call. The
 * operation gives the request schema and the success message; the route only computes
 * `result.data`.
 */
export const httpHandler = <S extends z.core.$ZodType<{ organizationId: string }>>(
  operation: RoutedOperation<S>,
  authenticator: Authenticator,
  route: (input: RouteInput<z.infer<S>>) => Promise<unknown>,
): HttpHandler => {
  // Middy's default early timeout (5 ms before the deadline) leaves no time to send the 503:
  // the route keeps the same margin as the authentication step.
  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 | CallableResult, Error, ApiContext>({
    timeoutEarlyInMillis: DEADLINE_MARGIN_MS,
  })
    .use(traceHandler())
    // logEvent false wins over POWERTOOLS_LOGGER_LOG_EVENT: the event's headers hold the auth token.
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    // Outside callableApi, so that its onError (which turns every error into an answer) runs
    // first and the metrics of every invocation, refused ones included, are flushed once.
    .use(logMetrics(serviceMetrics()))
    .use(httpHeaderNormalizer())
    .use(callableApi({ authenticator }))
    // Content type: callableApi checks it (any parameters); the parser's own check is stricter.
    .use(httpJsonBodyParser({ disableContentTypeCheck: true }))
    .handler(async (event, context, { signal }): Promise<CallableResult> => {
      const data = parseCallableBody(operation.request, event.body);
      const credential = context.credential as Credential;
      if (!grantsOrganization(credential, data.organizationId)) throw permissionDenied(data.organizationId);
      return { message: operation.message, data: await route({ data, credential, signal }) };
    });
  return handler as unknown as HttpHandler;
};
