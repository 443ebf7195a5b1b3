import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod';
import type { Authenticator } from '#shared/auth/authenticator.js';
import { type Credential, grantsOrganization, permissionDenied } from '#shared/auth/credential.js';
import { logger } from '#shared/lambda/logger.js';
import { type ApiContext, type CallableResult, callableApi, DEADLINE_MARGIN_MS } from './callable-api.js';
import { parseCallableBody } from './parse-body.js';

export interface RouteInput<T> {
  data: T;
  credential: Credential;
}

export interface RouteOptions<S extends z.core.$ZodType<{ organizationId: string }>> {
  schema: S;
  authenticator: Authenticator;
}

export type HttpHandler = (
  event: APIGatewayProxyEventV2,
  context: ApiContext,
) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * Builds a route handler: the shared middleware chain around a domain call. The route only
 * says which schema its `data` has and what to do with it.
 */
export const httpHandler = <S extends z.core.$ZodType<{ organizationId: string }>>(
  { schema, authenticator }: RouteOptions<S>,
  route: (input: RouteInput<z.infer<S>>) => Promise<CallableResult>,
): HttpHandler => {
  // Middy's default early timeout (5 ms before the deadline) leaves no time to send the 503:
  // the route keeps the same margin as the authentication step.
  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 | CallableResult, Error, ApiContext>({
    timeoutEarlyInMillis: DEADLINE_MARGIN_MS,
  })
    // logEvent false wins over POWERTOOLS_LOGGER_LOG_EVENT: the event's headers hold the auth token.
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(httpHeaderNormalizer())
    .use(callableApi({ authenticator }))
    // Content type: callableApi checks it (any parameters); the parser's own check is stricter.
    .use(httpJsonBodyParser({ disableContentTypeCheck: true }))
    .handler(async (event, context) => {
      const data = parseCallableBody(schema, event.body);
      const credential = context.credential as Credential;
      if (!grantsOrganization(credential, data.organizationId)) throw permissionDenied(data.organizationId);
      return route({ data, credential });
    });
  return handler as unknown as HttpHandler;
};
