import {
  type Credential,
  isActive,
  isWellFormedApiKey,
  isWellFormedToken,
  tokenMatches,
  unauthenticated,
} from './credential.js';
import type { CredentialStore } from './store.js';

const MAX_CACHED = 1000;

/**
 * How long a warm function remembers that a key is unknown (at most the credential cache time):
 * a caller repeating a wrong key costs one read per function instance in that time, not one per
 * request. A credential created meanwhile works after it.
 */
export const UNKNOWN_KEY_CACHE_SECONDS = 5;

/**
 * Why a request was refused, for operators (a metric): the caller always gets the same answer,
 * and neither the key nor the token is ever part of it.
 */
export type AuthFailureReason = 'missing' | 'malformed' | 'unknown' | 'wrong_token' | 'revoked' | 'expired';

export interface AuthenticatorOptions {
  /** How long a warm function trusts a looked-up credential; revocation takes effect within it. */
  cacheSeconds: number;
  now?: () => Date;
  /** Told the reason of each refusal (after the decision: it cannot change the answer). */
  onFailure?: (reason: AuthFailureReason) => void;
}

const isMissing = (value: unknown) => value === undefined || value === '';

/**
 * Checks the two auth headers against the credential store. Found credentials are cached for a
 * short time so that a warm function makes no read per request; unknown keys for a shorter one.
 */
export class Authenticator {
  private readonly cache = new Map<string, { credential: Credential | undefined; until: number }>();
  private readonly now: () => Date;

  constructor(
    private readonly store: CredentialStore,
    private readonly options: AuthenticatorOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /** Resolves the credential, or throws UNAUTHENTICATED with one message for every cause. */
  async authenticate(apiKey: unknown, token: unknown): Promise<Credential> {
    // A missing or malformed header (any length, any bytes) costs no lookup: it cannot match.
    if (!isWellFormedApiKey(apiKey) || !isWellFormedToken(token)) {
      throw this.refuse(isMissing(apiKey) || isMissing(token) ? 'missing' : 'malformed');
    }
    const now = this.now();
    const credential = await this.lookup(apiKey, now.getTime());
    // The hash is compared even when the key is unknown, so timing does not tell them apart.
    const matches = tokenMatches(token, credential?.tokenHash ?? '0'.repeat(64));
    if (!credential) throw this.refuse('unknown');
    if (!matches) throw this.refuse('wrong_token');
    if (!isActive(credential, now)) throw this.refuse(credential.revokedAt ? 'revoked' : 'expired');
    return credential;
  }

  private refuse(reason: AuthFailureReason) {
    this.options.onFailure?.(reason);
    return unauthenticated();
  }

  private async lookup(apiKey: string, nowMs: number): Promise<Credential | undefined> {
    const cached = this.cache.get(apiKey);
    if (cached && cached.until > nowMs) return cached.credential;
    this.cache.delete(apiKey);
    const credential = await this.store.get(apiKey);
    const seconds = credential
      ? this.options.cacheSeconds
      : Math.min(UNKNOWN_KEY_CACHE_SECONDS, this.options.cacheSeconds);
    if (seconds > 0) {
      if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(apiKey, { credential, until: nowMs + seconds * 1000 });
    }
    return credential;
  }
}
