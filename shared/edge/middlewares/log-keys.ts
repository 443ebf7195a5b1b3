import { logger } from '#shared/platform/logger.js';
import type { ApiMiddleware, ApiRequest } from './types.js';

/** Every log line of the request names the credential's public key (never its token). */
export const credentialLogKeys = (): ApiMiddleware => ({
  before: (request: ApiRequest) => {
    const apiKey = request.context.credential?.apiKey;
    if (apiKey !== undefined) logger.appendKeys({ apiKey });
  },
});
