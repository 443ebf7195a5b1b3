import { errorAnswer } from '#shared/api/envelope.js';
import { logger } from '#shared/platform/logger.js';
import { answerFor } from '../error-kinds.js';
import type { ApiMiddleware, ApiRequest } from './types.js';

/**
 * Turns any error into the `{error}` envelope, as the registry of error kinds says
 * (error-kinds.ts): status, message, details and headers; internals never leave.
 */
export const apiErrors = (): ApiMiddleware => ({
  onError: (request: ApiRequest) => {
    const { error } = request;
    const answer = answerFor(error, request.context.awsRequestId);
    request.response = errorAnswer(answer.status, answer.message, answer.details);
    request.response.headers = { ...request.response.headers, ...answer.headers };
    if (!answer.log) return;
    // `reason`, not `message`: Powertools reserves `message` for the log line's own and drops it.
    if (answer.kind === 'refused' || answer.kind === 'throttled') {
      logger[answer.log.level](answer.log.text, { status: answer.status, reason: answer.message });
    } else logger[answer.log.level](answer.log.text, { error });
  },
});
