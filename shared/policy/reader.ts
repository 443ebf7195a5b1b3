import type { StoredPolicy } from './model.js';
import type { PolicyStore } from './store.js';

/**
 * The policy as the routes that apply it read it (config/get, config/resolve, config/set's
 * locks): a warm function may keep an organization's policy for `cacheSeconds` (the deployment's
 * `policyCacheSeconds`, 10 s unless configured; none locally unless set), so a policy change
 * reaches every resolve within that time. policy/get and policy/set never read through it.
 */
export class PolicyReader {
  private readonly cache = new Map<string, { policy: StoredPolicy; until: number }>();

  constructor(
    private readonly store: Pick<PolicyStore, 'get'>,
    private readonly cacheSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  async get(organizationId: string): Promise<StoredPolicy> {
    const known = this.cached(organizationId);
    if (known) return known;
    const began = this.now();
    const policy = await this.store.get(organizationId);
    this.remember(policy, began);
    return policy;
  }

  /** The organization's policy while this instance may still serve it, without a read. */
  cached(organizationId: string): StoredPolicy | undefined {
    const cached = this.cache.get(organizationId);
    return cached && cached.until > this.now() ? cached.policy : undefined;
  }

  /**
   * A read that brings the policy along (config/get's and config/resolve's batched read): `alone`
   * while this instance holds the policy, else `along`, whose policy is then kept as `get` keeps
   * one, from the time the read began (a long read must not keep it longer).
   */
  async readAlong<T>(
    organizationId: string,
    read: { alone: () => Promise<T>; along: () => Promise<{ read: T; policy: StoredPolicy }> },
  ): Promise<{ read: T; policy: StoredPolicy }> {
    const known = this.cached(organizationId);
    if (known) return { read: await read.alone(), policy: known };
    const began = this.now();
    const result = await read.along();
    this.remember(result.policy, began);
    return result;
  }

  private remember(policy: StoredPolicy, readAt = this.now()): void {
    if (this.cacheSeconds <= 0) return;
    this.cache.delete(policy.organizationId);
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(policy.organizationId, { policy, until: readAt + this.cacheSeconds * 1000 });
  }
}

/** Organizations remembered per instance (a policy is at most 100 KB); the oldest is dropped beyond it. */
const MAX_CACHED = 100;
