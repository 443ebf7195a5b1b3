import { documentClient } from '#shared/platform/aws-clients.js';
import { credentialCacheSeconds, tableName } from '#shared/platform/environment.js';
import { countAuthFailure } from '#shared/platform/metrics.js';
import { Authenticator } from './authenticator.js';
import { DynamoCredentialStore } from './dynamo-credential-store.js';

/** The authenticator every HTTP function builds once, at module scope, from its environment. */
export const createAuthenticator = (env?: NodeJS.ProcessEnv): Authenticator =>
  new Authenticator(new DynamoCredentialStore(documentClient, tableName('credentials', env)), {
    cacheSeconds: credentialCacheSeconds(env),
    onFailure: countAuthFailure,
  });
