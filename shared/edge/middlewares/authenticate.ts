import type { Context } from 'aws-lambda';
import type { Authenticator } from '#shared/auth/authenticator.js';
import { DEADLINE_MARGIN_MS } from '../deadlines.js';
import type { ApiMiddleware, ApiRequest } from './types.js';

/**
 * Middy's early timeout covers the route handler only, not a middleware's `before`: without a
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
 * Authenticates the two headers before anything about the request is checked (an
 * unauthenticated caller learns nothing of the body rules) and puts the credential on the context.
 */
export const authenticate = (authenticator: Authenticator): ApiMiddleware => ({
  before: async (request: ApiRequest) => {
    const headers = request.event.headers ?? {};
    request.context.credential = await beforeDeadline(
      request.context,
      authenticator.authenticate(headers['x-service-api-key'], headers['x-service-auth-token']),
    );
  },
});
