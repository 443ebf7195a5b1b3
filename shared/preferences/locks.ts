import { CHANNELS } from '#shared/api/channels.js';
import { ApiError } from '#shared/api/errors.js';
import { lockOf, type Policy } from '#shared/policy/model.js';
import type { ChannelConfig } from './model.js';
import type { WithPolicy } from './store.js';

/** Where the routes read an organization's policy (shared/policy/reader.ts caches it). */
export interface PolicySource {
  get(organizationId: string): Promise<{ policy: Policy }>;
  /** A read that brings the policy along, unless the source holds it (PolicyReader.readAlong). */
  readAlong?<T>(
    organizationId: string,
    read: { alone: () => Promise<T>; along: () => Promise<WithPolicy<T>> },
  ): Promise<{ read: T; policy: { policy: Policy } }>;
}

export const policyOf = async (source: PolicySource | undefined, organizationId: string): Promise<Policy> =>
  source ? (await source.get(organizationId)).policy : {};

/**
 * A read of entries and the organization's policy: the policy from the source when it holds it,
 * else read `along` with the entries in their batched call (and kept by the source), so that it
 * costs no call of its own (some 5 ms of CPU each on a cold start). Never the source's `get`:
 * the functions of these reads hold no GetItem.
 */
export const readWithPolicy = async <T>(
  source: PolicySource | undefined,
  organizationId: string,
  read: { alone: () => Promise<T>; along: () => Promise<WithPolicy<T>> },
): Promise<{ read: T; policy: Policy }> => {
  if (!source) return { read: await read.alone(), policy: {} };
  const { read: value, policy } = source.readAlong ? await source.readAlong(organizationId, read) : await read.along();
  return { read: value, policy: policy.policy };
};

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
