import { CHANNELS, type Channel, type DeliverySetting, type FullChannelConfig } from '#shared/api/channels.js';
import { distinct } from '#shared/api/identifiers.js';
import { type PolicySource, policyOf } from './locks.js';
import { resolveChannels } from './resolution.js';
import type { ResolveConfigRequest, ResolveConfigResult, ResolvedUser } from './routes/resolve-config.js';
import type { PreferenceStore } from './store.js';
import { userMap } from './user-map.js';

export interface ResolveConfigDeps {
  store: PreferenceStore;
  defaults: FullChannelConfig;
  /** The organization's policy (shared/policy/reader.ts); without it, no policy applies. */
  policies?: PolicySource | undefined;
}

const delivers = (setting: DeliverySetting, involved: boolean): boolean =>
  setting === 'ALL' || (setting === 'MINE' && involved);

/**
 * Send time: each user's effective config on one document (resolved exactly as config/get
 * does: resolution.ts), and with an activity who receives it on which channel. Reads only: one
 * batched read of every user's document and organization entries, and the policy.
 */
export const resolveConfig = async (
  { store, defaults, policies }: ResolveConfigDeps,
  request: ResolveConfigRequest,
): Promise<ResolveConfigResult> => {
  const { organizationId, documentId, activity, category } = request;
  const userIds = distinct(request.userIds);
  const [layers, policy] = await Promise.all([
    store.getUserLayers(organizationId, documentId, userIds),
    policyOf(policies, organizationId),
  ]);
  const involved = new Set(activity?.involvedUserIds ?? []);

  const users: ResolvedUser[] = userIds.map((userId) => {
    const resolved = resolveChannels({ ...layers.get(userId), policy, category, defaults });
    if (!activity) return { userId, ...resolved };
    const deliver = Object.fromEntries(
      CHANNELS.map((channel) => [channel, delivers(resolved.effective[channel], involved.has(userId))]),
    ) as Record<Channel, boolean>;
    return { userId, ...resolved, deliver };
  });

  const result: ResolveConfigResult = { documentId, users: userMap(users.map((user) => [user.userId, user])) };
  if (activity) {
    result.recipients = Object.fromEntries(
      CHANNELS.map((channel) => [channel, users.filter((user) => user.deliver?.[channel]).map((user) => user.userId)]),
    ) as Record<Channel, string[]>;
  }
  return result;
};
