import { documentClient } from '#shared/platform/aws-clients.js';
import { credentialCacheSeconds, defaultRateLimit, tableName } from '#shared/platform/environment.js';
import { countAuthFailure } from '#shared/platform/metrics.js';
import { Authenticator } from './authenticator.js';
import { DynamoCredentialStore } from './dynamo-credential-store.js';
import { DynamoRateLimitStore } from './dynamo-rate-limit-store.js';
import { RateLimiter } from './rate-limit.js';

/** The authenticator every HTTP function builds once, at module scope, from its environment. */
export const createAuthenticator = (env?: NodeJS.ProcessEnv): Authenticator =>
  new Authenticator(new DynamoCredentialStore(documentClient, tableName('credentials', env)), {
    cacheSeconds: credentialCacheSeconds(env),
    onFailure: countAuthFailure,
  });

/** The rate limiter every HTTP function builds once: the shared buckets, and the deployment's default limit. */
export const createRateLimiter = (env?: NodeJS.ProcessEnv): RateLimiter =>
  new RateLimiter(new DynamoRateLimitStore(documentClient, tableName('limits', env)), defaultRateLimit(env));
