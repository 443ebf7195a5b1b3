import { assertAnswerFits } from '#shared/api/answer-size.js';
import { CHANNELS, type Channel, type DeliverySetting, type FullChannelConfig } from '#shared/api/channels.js';
import { distinct } from '#shared/api/identifiers.js';
import { decideChannels } from '#shared/schedules/decide.js';
import { type PolicySource, readWithPolicy } from './locks.js';
import { resolveChannels } from './resolution.js';
import { largestResolveAnswerBytes } from './resolve-size.js';
import type { ResolveConfigRequest, ResolveConfigResult, ResolvedUser } from './routes/resolve-config.js';
import type { PreferenceStore } from './store.js';
import { userMap } from './user-map.js';

export interface ResolveConfigDeps {
  store: PreferenceStore;
  defaults: FullChannelConfig;
  /** The request's time: `at` when the request names none. */
  now?: () => Date;
  /** The organization's policy (shared/policy/reader.ts); without it, no policy applies. */
  policies?: PolicySource | undefined;
}

const delivers = (setting: DeliverySetting, involved: boolean): boolean =>
  setting === 'ALL' || (setting === 'MINE' && involved);

/**
 * Send time: each user's effective config on one document (resolved exactly as config/get
 * does: resolution.ts), and with an activity who receives it on which channel, and when: now,
 * later (quiet hours, a snooze, a digest: the schedule on the user's organization-level entry),
 * or never. Reads only: one batched read of every user's document and organization entries,
 * the organization's policy in it unless this instance holds it. A request whose answer could
 * pass 5 MB (long ids, many users) is refused before any read (resolve-size.ts).
 */
export const resolveConfig = async (
  { store, defaults, policies, now = () => new Date() }: ResolveConfigDeps,
  request: ResolveConfigRequest,
): Promise<ResolveConfigResult> => {
  const { organizationId, documentId, activity, category } = request;
  assertAnswerFits(
    largestResolveAnswerBytes(request),
    "each user's id appears in the answer twice, and with an activity six more times (recipients, and sendNow or deferred, per channel)",
    'Send fewer users per request.',
  );
  const userIds = distinct(request.userIds);
  const { read: layers, policy } = await readWithPolicy(policies, organizationId, {
    alone: () => store.getUserLayers(organizationId, documentId, userIds),
    along: () => store.getUserLayersWithPolicy(organizationId, documentId, userIds),
  });
  const involved = new Set(activity?.involvedUserIds ?? []);

  const at = request.at === undefined ? now() : new Date(request.at);
  const priority = request.priority ?? 'normal';

  const users: ResolvedUser[] = userIds.map((userId) => {
    const userLayers = layers.get(userId);
    const resolved = resolveChannels({ ...userLayers, policy, category, defaults });
    if (!activity) return { userId, ...resolved };
    const deliver = Object.fromEntries(
      CHANNELS.map((channel) => [channel, delivers(resolved.effective[channel], involved.has(userId))]),
    ) as Record<Channel, boolean>;
    // The schedule is on the organization-level entry, read with the layers: no read of its own.
    const decision = decideChannels({ deliver, priority, at, schedule: userLayers?.organization?.schedule });
    return { userId, ...resolved, deliver, decision };
  });

  const result: ResolveConfigResult = { documentId, users: userMap(users.map((user) => [user.userId, user])) };
  if (activity) {
    const byChannel = <T>(pick: (user: ResolvedUser, channel: Channel) => T | undefined) =>
      Object.fromEntries(
        CHANNELS.map((channel) => [
          channel,
          users.flatMap((user) => {
            const picked = pick(user, channel);
            return picked === undefined ? [] : [picked];
          }),
        ]),
      ) as Record<Channel, T[]>;
    result.recipients = byChannel((user, channel) => (user.deliver?.[channel] ? user.userId : undefined));
    result.sendNow = byChannel((user, channel) =>
      user.decision?.[channel].action === 'send' ? user.userId : undefined,
    );
    result.deferred = byChannel((user, channel) => {
      const { action, deliverAt } = user.decision?.[channel] ?? {};
      return (action === 'defer' || action === 'digest') && deliverAt
        ? { userId: user.userId, action, deliverAt }
        : undefined;
    });
  }
  return result;
};
