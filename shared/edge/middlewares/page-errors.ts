import type { MiddlewareObj, Request } from '@middy/core';
import { logger } from '#shared/platform/logger.js';
import { countLinkPageFailure } from '#shared/platform/metrics.js';
import { answerFor } from '../error-kinds.js';

/** A page answer that cannot be served: how long to wait before trying again. */
export const RETRY_AFTER_SECONDS = 30;
export const TRY_AGAIN_STATUS = 429;

/**
 * The pages' error mapping: whatever the error's kind in the registry (error-kinds.ts), nothing
 * was changed, so the answer is the route's "try again" page with 429 and Retry-After, never a
 * 5xx. Logged at ERROR under the kind's own words, with the error only (its name, message and
 * stack, which name no token: the routes never put one in), and counted.
 */
export const pageErrors = (tryAgainPageFor: (event: unknown) => string): MiddlewareObj => ({
  onError: (request: Request) => {
    const { error } = request;
    const { log } = answerFor(error, request.context.awsRequestId);
    logger.error(log?.text ?? 'Unexpected error', { error, route: (request.event as { routeKey?: string })?.routeKey });
    countLinkPageFailure();
    request.response = {
      statusCode: TRY_AGAIN_STATUS,
      headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
      body: tryAgainPageFor(request.event),
    };
  },
});
