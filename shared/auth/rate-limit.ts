import { logger } from '#shared/platform/logger.js';
import type { Credential, RateLimit } from './credential.js';

/**
 * Each credential's request rate, held across every instance of every function (contract section
 * 2): a token bucket of `burst` permits refilled at `perSecond`, kept as GCRA's one number per
 * credential (the theoretical arrival time) in a shared table. A warm instance takes permits in
 * chunks and spends them locally, so that a busy credential costs well under one storage call per
 * request: a chunk starts at one permit, doubles while the instance spends its chunks within
 * their life, halves when it does not, and is at most a quarter of the burst.
 */

/** A reservation of permits in the shared bucket. */
export interface RateLimitStore {
  /**
   * Takes up to `wanted` permits of `apiKey`'s bucket at `nowMs`: answers how many were taken
   * (at least one, or none), and, when none, how long until one frees.
   */
  take(
    apiKey: string,
    wanted: number,
    limit: RateLimit,
    nowMs: number,
  ): Promise<{ taken: number; retryAfterMs: number }>;
}

interface Lease {
  left: number;
  /** Permits not spent by then are dropped: they were paid for in the bucket at the time they were taken. */
  until: number;
  size: number;
  /** Refused until then: a caller that keeps knocking while over its limit costs no storage call. */
  refusedUntil?: number;
}

/** The longest a chunk of permits lives, whatever the rate. */
const MAX_LEASE_MS = 1_000;

export type Admission = { admitted: true } | { admitted: false; retryAfterSeconds: number };

export class RateLimiter {
  private readonly leases = new Map<string, Lease>();

  constructor(
    private readonly store: RateLimitStore,
    /** The deployment's limit, for credentials without their own; none when undefined. */
    private readonly defaultLimit: RateLimit | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * One request of an authenticated credential: admitted, or when to come back. A credential
   * with no limit of its own and no deployment default is never limited (and costs no call). A
   * bucket that cannot be read admits (logged): the limiter protects tenants from each other, and
   * must not take the service down with its table.
   */
  async admitCredential(credential: Credential): Promise<Admission> {
    const limit = credential.rateLimit ?? this.defaultLimit;
    if (!limit) return { admitted: true };
    try {
      return await this.admit(credential.apiKey, limit);
    } catch (error) {
      logger.warn('Rate limit not checked: its table did not answer; the request is admitted', {
        reason: (error as Error).message,
      });
      return { admitted: true };
    }
  }

  /** One request of `apiKey` under `limit`: admitted, or when to come back. */
  async admit(apiKey: string, limit: RateLimit): Promise<Admission> {
    const now = this.now();
    const lease = this.leases.get(apiKey);
    if (lease?.refusedUntil !== undefined && now < lease.refusedUntil) {
      return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((lease.refusedUntil - now) / 1000)) };
    }
    if (lease && lease.left > 0 && now < lease.until) {
      lease.left -= 1;
      return { admitted: true };
    }
    const size = nextChunk(lease, now, limit);
    const { taken, retryAfterMs } = await this.store.take(apiKey, size, limit, now);
    if (taken === 0) {
      this.leases.set(apiKey, { left: 0, until: now, size: 1, refusedUntil: now + retryAfterMs });
      return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
    }
    const msPerPermit = 1000 / limit.perSecond;
    if (this.leases.size >= MAX_LEASES) this.leases.delete(this.leases.keys().next().value as string);
    this.leases.set(apiKey, {
      left: taken - 1,
      until: now + Math.min(MAX_LEASE_MS, Math.max(100, taken * msPerPermit)),
      size: taken,
    });
    return { admitted: true };
  }
}

/** Credentials remembered per instance; the oldest is dropped beyond it. */
const MAX_LEASES = 1000;

/** The next chunk: larger while chunks are spent within their life, smaller when they are not. */
export const nextChunk = (previous: Lease | undefined, now: number, limit: RateLimit): number => {
  const largest = Math.max(1, Math.floor(Math.min(limit.burst, limit.perSecond) / 4));
  if (!previous || previous.refusedUntil !== undefined) return 1;
  const spentInTime = previous.left === 0 && now < previous.until;
  return Math.min(largest, Math.max(1, spentInTime ? previous.size * 2 : Math.floor(previous.size / 2)));
};
