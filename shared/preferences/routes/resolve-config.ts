import * as z from 'zod/mini';
import { identifier, MAX_USER_IDS } from '#shared/api/identifiers.js';
import { once } from '#shared/platform/once.js';
import { accessOf, type Route } from '#shared/platform/route.js';
import { DECISION_ACTIONS, DECISION_REASONS, PRIORITIES } from '#shared/schedules/decide.js';
import { instant } from '#shared/schedules/schema.js';
import { byChannel, resolution } from '../results.js';
import { category, userIds } from '../schemas.js';
import { PREFERENCE_STORE_GRANTS } from '../store-grants.js';

/** What a notification is about: the users it directly involves (mentioned, replied to). */
export const activity = z.strictObject(
  {
    involvedUserIds: z.optional(
      z
        .array(identifier('involvedUserId'), { error: 'activity.involvedUserIds must be an array of strings' })
        .check(
          z.maxLength(MAX_USER_IDS, { error: `activity.involvedUserIds must have at most ${MAX_USER_IDS} entries` }),
        ),
    ),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'activity must be an object' : undefined) },
);

const EARLIEST_AT = Date.parse('1970-01-01T00:00:00Z');
const LATEST_AT = Date.parse('9999-01-01T00:00:00Z');

/** POST /v2/notifications/config/resolve */
export const resolveConfigRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  documentId: identifier('documentId'),
  userIds,
  activity: z.optional(activity),
  category,
  /** The instant to decide at (default: the request's time). */
  at: z.optional(
    instant('at').check(
      // Every deliverAt then stays a four-digit year, as RFC 3339 writes it (a deferral adds days).
      z.refine((at) => Date.parse(at) >= EARLIEST_AT && Date.parse(at) < LATEST_AT, {
        error: 'at must be from 1970-01-01T00:00:00Z to before 9999-01-01T00:00:00Z',
        // Only for an instant: a value the format refused (23:59:60Z) is not also out of range.
        when: (payload) => payload.issues.length === 0,
      }),
    ),
  ),
  priority: z.optional(z.enum(PRIORITIES, { error: `priority must be one of ${PRIORITIES.join(', ')}` })),
});
export type ResolveConfigRequest = z.infer<typeof resolveConfigRequest>;

/** What a channel does with the activity at `at` (docs/api.md, Schedules). */
export const channelDecision = once(() =>
  z.strictObject({
    action: z.enum(DECISION_ACTIONS),
    deliverAt: z.optional(z.iso.datetime()),
    reason: z.enum(DECISION_REASONS),
  }),
);

export const resolvedUser = once(() =>
  z.strictObject({
    userId: z.string(),
    ...resolution(),
    deliver: z.optional(byChannel(z.boolean())),
    decision: z.optional(byChannel(channelDecision())),
  }),
);
export type ResolvedUser = z.output<ReturnType<typeof resolvedUser>>;

/** The actions a `deferred` list holds. */
export const DEFERRED_ACTIONS = ['defer', 'digest'] as const;

export const resolveConfigResult = once(() =>
  z.strictObject({
    documentId: z.string(),
    users: z.record(z.string(), resolvedUser()),
    recipients: z.optional(byChannel(z.array(z.string()))),
    sendNow: z.optional(byChannel(z.array(z.string()))),
    deferred: z.optional(
      byChannel(
        z.array(z.strictObject({ userId: z.string(), action: z.enum(DEFERRED_ACTIONS), deliverAt: z.iso.datetime() })),
      ),
    ),
  }),
);
export type ResolveConfigResult = z.output<ReturnType<typeof resolveConfigResult>>;

export const RESOLVE_CONFIG_MESSAGE = 'User config resolved successfully.';

export const resolveConfigRoute = {
  operationId: 'resolveConfig',
  path: '/v2/notifications/config/resolve',
  request: resolveConfigRequest,
  result: resolveConfigResult,
  message: RESOLVE_CONFIG_MESSAGE,
  scope: 'resolve',
  // Reads only: every user's document and organization entries, 100 keys per batched read, the
  // organization's policy among them (cached for policyCacheSeconds).
  function: {
    ...accessOf(PREFERENCE_STORE_GRANTS.getUserLayersWithPolicy),
    settings: ['deliveryDefaults', 'policyCache'],
  },
} as const satisfies Route;
