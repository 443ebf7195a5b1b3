import { GetParameterError } from '@aws-lambda-powertools/parameters/errors';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { deriveKeyring, type Keyring, type KeyringSource, parseKeyringDocument } from './keyring.js';

/**
 * The link keys from their Secrets Manager secret, read through Powertools Parameters and kept for
 * `maxAgeSeconds` (LINK_KEYS_CACHE_SECONDS): a warm function reads the secret at most once in that
 * time, and a key added to the secret reaches every function within it. The keys derived from one
 * reading are kept with it. A reading that fails throws the SDK's own error (a throttled or
 * unreachable Secrets Manager is a dependency failure like DynamoDB's); a secret that is not a
 * keyring throws a KeyringError, which names no key.
 */
export class SecretKeyring implements KeyringSource {
  private readonly provider: SecretsProvider;
  private derived: { source: unknown; keyring: Keyring } | undefined;

  constructor(
    client: SecretsManagerClient,
    private readonly secretId: string,
    private readonly maxAgeSeconds: number,
  ) {
    this.provider = new SecretsProvider({ awsSdkV3Client: client });
  }

  async keyring(): Promise<Keyring> {
    let source: unknown;
    try {
      source = await this.provider.get(this.secretId, { maxAge: this.maxAgeSeconds });
    } catch (error) {
      // Powertools wraps the SDK's error: the cause tells a throttle or an outage from a fault.
      throw error instanceof GetParameterError && error.cause ? error.cause : error;
    }
    const known = this.derived;
    if (known && known.source === source) return known.keyring;
    const keyring = deriveKeyring(parseKeyringDocument(source));
    this.derived = { source, keyring };
    return keyring;
  }
}
