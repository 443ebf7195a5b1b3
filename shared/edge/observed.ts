import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy, { type MiddyfiedHandler } from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from '#shared/platform/logger.js';
import { serviceMetrics } from '#shared/platform/metrics.js';

/**
 * The chain every function of the service starts with, whatever invokes it (an HTTP route, a
 * queue, a stream, a schedule): the logger's Lambda context (function name,
 * request id, cold start; keys appended during one invocation reset after it), and the business
 * metrics flushed once per invocation. The event is never logged, whatever
 * POWERTOOLS_LOGGER_LOG_EVENT says: an HTTP event's headers hold the auth token.
 */
export const observed = <Event, Result, Ctx extends Context = Context>(
  options: { timeoutEarlyInMillis?: number } = {},
): MiddyfiedHandler<Event, Result, Error, Ctx> =>
  middy<Event, Result, Error, Ctx>(options)
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(logMetrics(serviceMetrics()));
