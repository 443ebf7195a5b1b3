import { ApiError } from '#shared/api/errors.js';
import type { RateLimiter } from '#shared/auth/rate-limit.js';
import { countRateLimited } from '#shared/platform/metrics.js';
import type { ApiMiddleware, ApiRequest } from './types.js';

/** Takes the credential's permit under its rate limit: over it, RESOURCE_EXHAUSTED saying when to come back. */
export const rateLimit = (rateLimiter: RateLimiter | undefined): ApiMiddleware => ({
  before: async (request: ApiRequest) => {
    const { credential } = request.context;
    if (!rateLimiter || !credential) return;
    const admission = await rateLimiter.admitCredential(credential);
    if (admission.admitted) return;
    countRateLimited();
    throw new ApiError(
      'RESOURCE_EXHAUSTED',
      `The credential's request rate is exceeded; retry after ${admission.retryAfterSeconds} s.`,
      { retryAfterSeconds: admission.retryAfterSeconds },
    );
  },
});
