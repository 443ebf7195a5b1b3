import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { errorAnswer } from '#shared/api/envelope.js';
import { logger } from '#shared/platform/logger.js';

/** Paths the answer repeats: the API's own. Any other (a mangled link of an email, with its token) is not repeated. */
const isShown = (path: string): boolean => /^\/v2\//.test(path) && path.length <= 512;

/**
 * The API's `$default` route: any path that is not one of the operations answers NOT_FOUND
 * in the API's envelope (API Gateway's own 404 body is not).
 */
export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  // Never log the event, whatever POWERTOOLS_LOGGER_LOG_EVENT says: its headers may hold a token.
  .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
  .handler(async (event) => {
    const method = event.requestContext?.http?.method ?? 'POST';
    const path = event.rawPath ?? '/';
    const message = isShown(path) ? `No route for ${method} ${path}.` : `No route for ${method} on this path.`;
    return errorAnswer('NOT_FOUND', message);
  });
