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
    const now = this.now();
    const cached = this.cache.get(organizationId);
    if (cached && cached.until > now) return cached.policy;
    const policy = await this.store.get(organizationId);
    if (this.cacheSeconds > 0) {
      if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(organizationId, { policy, until: now + this.cacheSeconds * 1000 });
    }
    return policy;
  }
}

/** Organizations remembered per instance (a policy is at most 100 KB); the oldest is dropped beyond it. */
const MAX_CACHED = 100;
