import {
  type Credential,
  isActive,
  isWellFormedApiKey,
  isWellFormedToken,
  tokenMatches,
  unauthenticated,
} from './credential.js';
import type { CredentialStore } from './store.js';

/** Valid credentials a warm function remembers. */
const MAX_CACHED = 1000;
/**
 * Unknown keys a warm function remembers, in a cache of their own: a flood of made-up keys
 * evicts only other unknown keys, never a valid credential.
 */
const MAX_UNKNOWN_CACHED = 1000;

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

/** Remembers `value` for `key`, dropping the oldest entry of `cache` when it holds `max`. */
const remember = <T>(cache: Map<string, T>, key: string, value: T, max: number) => {
  if (cache.size >= max) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
};

/**
 * Checks the two auth headers against the credential store. Found credentials are cached for a
 * short time so that a warm function makes no read per request; unknown keys for a shorter one,
 * apart from the credentials (a flood of unknown keys cannot evict a valid one).
 */
export class Authenticator {
  private readonly credentials = new Map<string, { credential: Credential; until: number }>();
  /** Unknown key -> until when it is known to be unknown. */
  private readonly unknownKeys = new Map<string, number>();
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
    const cached = this.credentials.get(apiKey);
    if (cached && cached.until > nowMs) return cached.credential;
    const unknownUntil = this.unknownKeys.get(apiKey);
    if (unknownUntil !== undefined && unknownUntil > nowMs) return undefined;
    this.credentials.delete(apiKey);
    this.unknownKeys.delete(apiKey);
    const credential = await this.store.get(apiKey);
    const { cacheSeconds } = this.options;
    if (credential && cacheSeconds > 0) {
      remember(this.credentials, apiKey, { credential, until: nowMs + cacheSeconds * 1000 }, MAX_CACHED);
    }
    const unknownSeconds = Math.min(UNKNOWN_KEY_CACHE_SECONDS, cacheSeconds);
    if (!credential && unknownSeconds > 0) {
      remember(this.unknownKeys, apiKey, nowMs + unknownSeconds * 1000, MAX_UNKNOWN_CACHED);
    }
    return credential;
  }
}
