import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { MAX_ATTEMPTS, requestHandler } from './aws-clients.js';

/**
 * The Secrets Manager client, built once per process (module scope), with the same retry and
 * socket settings as the DynamoDB client. Only the functions that read a secret (the link keys)
 * import this module. Its endpoint follows the SDK's own AWS_ENDPOINT_URL_SECRETS_MANAGER, which
 * the local twin points at its stand-in.
 */
export const secretsClient = new SecretsManagerClient({ maxAttempts: MAX_ATTEMPTS, requestHandler });
