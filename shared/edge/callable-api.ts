import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { errorAnswer, INTERNAL_MESSAGE, successAnswer } from '#shared/api/envelope.js';
import { isApiError } from '#shared/api/errors.js';
import type { Authenticator } from '#shared/auth/authenticator.js';
import type { Credential } from '#shared/auth/credential.js';
import { isTransientDependencyError } from '#shared/platform/dependency-errors.js';
import { logger } from '#shared/platform/logger.js';
import { assertCallableRequest } from './request-checks.js';

export interface ApiContext extends Context {
  credential?: Credential;
}

/** What a route's domain function returns; the middleware wraps it in `{result}`. */
export interface CallableResult {
  message: string;
  data: unknown;
}

type ApiRequest = Request<
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2 | CallableResult,
  Error,
  ApiContext
>;

const isCallableResult = (value: unknown): value is CallableResult =>
  typeof value === 'object' && value !== null && 'message' in value && 'data' in value && !('statusCode' in value);

/** Middy's own HTTP errors (json body parser: 415, 422) carry a status code and a safe message. */
const isMiddyClientError = (error: unknown): error is Error & { statusCode: number } => {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
};

/** Time kept back from the function's deadline to send the answer. */
export const DEADLINE_MARGIN_MS = 200;

/**
 * Middy's early timeout covers the route handler only, not this `before` step: without a
 * deadline of its own a credential lookup in SDK backoff (throttling backs off for up to ~15 s)
 * would run into the Lambda timeout, which API Gateway answers outside the envelope. Past the
 * deadline it fails as a TimeoutError, a transient error: 503 UNAVAILABLE.
 */
const beforeDeadline = async <T>(context: Context, work: Promise<T>): Promise<T> => {
  const remaining =
    typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : undefined;
  if (remaining === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(Object.assign(new Error('Authentication did not finish before the deadline'), { name: 'TimeoutError' })),
      Math.max(0, remaining - DEADLINE_MARGIN_MS),
    );
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * The one middleware every HTTP route shares (docs/api.md, Wire protocol and Authentication):
 * - before: authenticates the two headers (before anything about the body is checked),
 *   then checks method, content type and size;
 * - after: wraps the route's `{message, data}` in the `{result}` envelope;
 * - onError: turns any error into the `{error}` envelope with its HTTP status. Unexpected
 *   errors become INTERNAL with the request id and are logged; internals never leave.
 */
export const callableApi = ({
  authenticator,
}: {
  authenticator: Authenticator;
}): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 | CallableResult, Error, ApiContext> => ({
  before: async (request: ApiRequest) => {
    const headers = request.event.headers ?? {};
    const credential = await beforeDeadline(
      request.context,
      authenticator.authenticate(headers['x-service-api-key'], headers['x-service-auth-token']),
    );
    request.context.credential = credential;
    logger.appendKeys({ apiKey: credential.apiKey });
    assertCallableRequest(request.event);
  },
  after: async (request: ApiRequest) => {
    const response = request.response;
    if (isCallableResult(response)) request.response = successAnswer(response.message, response.data);
  },
  onError: async (request: ApiRequest) => {
    const { error } = request;
    if (isApiError(error)) {
      request.response = errorAnswer(error.status, error.message, error.details);
      // `reason`, not `message`: Powertools reserves `message` for the log line's own and drops it.
      if (error.httpStatus >= 500) logger.warn('Request failed', { status: error.status, reason: error.message });
      return;
    }
    if (isMiddyClientError(error)) {
      request.response = errorAnswer('INVALID_ARGUMENT', `Request body must be valid JSON: ${error.message}.`);
      return;
    }
    const requestId = request.context.awsRequestId;
    if (isTransientDependencyError(error)) {
      logger.error('Dependency unavailable', { error });
      request.response = errorAnswer('UNAVAILABLE', 'A dependency is unavailable; the request is safe to retry.', {
        requestId,
      });
      return;
    }
    logger.error('Unexpected error', { error });
    request.response = errorAnswer('INTERNAL', INTERNAL_MESSAGE, { requestId });
  },
});
