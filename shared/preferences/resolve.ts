import { CHANNELS, type Channel, type DeliverySetting, type FullChannelConfig } from '#shared/api/channels.js';
import { distinct } from '#shared/api/identifiers.js';
import type { ResolveConfigRequest, ResolveConfigResult, ResolvedUser } from './routes/resolve-config.js';
import { resolveEffective } from './service.js';
import type { PreferenceStore } from './store.js';
import { userMap } from './user-map.js';

export interface ResolveConfigDeps {
  store: PreferenceStore;
  defaults: FullChannelConfig;
}

const delivers = (setting: DeliverySetting, involved: boolean): boolean =>
  setting === 'ALL' || (setting === 'MINE' && involved);

/**
 * Send time: each user's effective config on one document (resolved exactly as config/get
 * does), and with an activity who receives it on which channel. Reads only: one batched read
 * of every user's document and organization entries.
 */
export const resolveConfig = async (
  { store, defaults }: ResolveConfigDeps,
  request: ResolveConfigRequest,
): Promise<ResolveConfigResult> => {
  const { organizationId, documentId, activity } = request;
  const userIds = distinct(request.userIds);
  const layers = await store.getUserLayers(organizationId, documentId, userIds);
  const involved = new Set(activity?.involvedUserIds ?? []);

  const users: ResolvedUser[] = userIds.map((userId) => {
    const resolved = resolveEffective(layers.get(userId) ?? {}, defaults);
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
