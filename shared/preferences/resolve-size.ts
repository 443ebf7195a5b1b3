import { jsonBytes } from '#shared/api/answer-size.js';
import { CHANNELS, type Channel, DELIVERY_SETTINGS } from '#shared/api/channels.js';
import { successBody } from '#shared/api/envelope.js';
import { distinct } from '#shared/api/identifiers.js';
import { DECISION_ACTIONS, DECISION_REASONS } from '#shared/schedules/decide.js';
import { CONFIG_SOURCES } from './results.js';
import { DEFERRED_ACTIONS, RESOLVE_CONFIG_MESSAGE, type ResolveConfigRequest } from './routes/resolve-config.js';

const longest = (values: readonly string[]): string =>
  values.reduce((longer, value) => (value.length > longer.length ? value : longer), '');

/** Every channel with the same value. */
const everyChannel = <T>(value: T): Record<Channel, T> =>
  Object.fromEntries(CHANNELS.map((channel) => [channel, value])) as Record<Channel, T>;

// A deliverAt is before the year 10000 (`at` is before 9999-01-01, a deferral adds weeks at most),
// so no instant is longer than this one.
const LONGEST_INSTANT = '9999-12-31T23:59:59.999Z';

/**
 * The size of the largest answer config/resolve can give to `request`, computed from the request
 * alone (no read): every user with the longest value of every field, and with an activity
 * delivering on every channel, listed in `recipients` and in `deferred` (longer than `sendNow`).
 * An upper bound: no user has all of those at once.
 */
export const largestResolveAnswerBytes = (request: ResolveConfigRequest): number => {
  const userIds = distinct(request.userIds);
  const withActivity = request.activity !== undefined;
  const lists = withActivity
    ? { recipients: everyChannel([]), sendNow: everyChannel([]), deferred: everyChannel([]) }
    : {};
  // `{"result":{...,"data":{"documentId":...,"users":{},...}}}`, each user `"<id>":{...},` and each listed id `...,`.
  let bytes = jsonBytes(successBody(RESOLVE_CONFIG_MESSAGE, { documentId: request.documentId, users: {}, ...lists }));
  const longestDecision = {
    action: longest(DECISION_ACTIONS),
    deliverAt: LONGEST_INSTANT,
    reason: longest(DECISION_REASONS),
  };
  for (const userId of userIds) {
    const user = {
      userId,
      effective: everyChannel(longest(DELIVERY_SETTINGS)),
      source: everyChannel(longest(CONFIG_SOURCES)),
      ...(withActivity ? { deliver: everyChannel(false), decision: everyChannel(longestDecision) } : {}),
    };
    bytes += jsonBytes(userId) + 1 + jsonBytes(user) + 1;
    if (withActivity) {
      const deferred = { userId, action: longest(DEFERRED_ACTIONS), deliverAt: LONGEST_INSTANT };
      bytes += CHANNELS.length * (jsonBytes(userId) + 1 + jsonBytes(deferred) + 1);
    }
  }
  return bytes;
};
