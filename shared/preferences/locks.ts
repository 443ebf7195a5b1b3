import { CHANNELS } from '#shared/api/channels.js';
import { ApiError } from '#shared/api/errors.js';
import { lockOf, type Policy } from '#shared/policy/model.js';
import type { ChannelConfig } from './model.js';

/** Where the routes read an organization's policy (shared/policy/reader.ts caches it). */
export interface PolicySource {
  get(organizationId: string): Promise<{ policy: Policy }>;
}

export const policyOf = async (source: PolicySource | undefined, organizationId: string): Promise<Policy> =>
  source ? (await source.get(organizationId)).policy : {};

/**
 * docs/api.md, Categories and policy: a set may not name a channel the organization locked, for
 * the set's category (or for all categories); without a category only the all-categories locks
 * count. FAILED_PRECONDITION, naming the channels, before anything is written. A reset is
 * always allowed.
 */
export const assertUnlocked = (policy: Policy, config: ChannelConfig, category: string | undefined): void => {
  const locked = CHANNELS.filter((channel) => config[channel] !== undefined && lockOf(policy, channel, category));
  if (locked.length === 0) return;
  const where = category === undefined ? 'for every category' : `for category ${category}`;
  throw new ApiError(
    'FAILED_PRECONDITION',
    `${locked.join(', ')} ${locked.length === 1 ? 'is' : 'are'} locked by the organization's policy ${where}: nothing was written.`,
    { lockedChannels: locked },
  );
};
