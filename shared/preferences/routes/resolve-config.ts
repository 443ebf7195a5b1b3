import * as z from 'zod/mini';
import { identifier, MAX_USER_IDS } from '#shared/api/identifiers.js';
import type { Route } from '#shared/platform/route.js';
import { byChannel, resolution } from '../results.js';
import { category, userIds } from '../schemas.js';

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

/** POST /v2/notifications/config/resolve */
export const resolveConfigRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  documentId: identifier('documentId'),
  userIds,
  activity: z.optional(activity),
  category,
});
export type ResolveConfigRequest = z.infer<typeof resolveConfigRequest>;

export const resolvedUser = z.strictObject({
  userId: z.string(),
  ...resolution(),
  deliver: z.optional(byChannel(z.boolean())),
});
export type ResolvedUser = z.output<typeof resolvedUser>;

export const resolveConfigResult = z.strictObject({
  documentId: z.string(),
  users: z.record(z.string(), resolvedUser),
  recipients: z.optional(byChannel(z.array(z.string()))),
});
export type ResolveConfigResult = z.output<typeof resolveConfigResult>;

export const RESOLVE_CONFIG_MESSAGE = 'User config resolved successfully.';

export const resolveConfigRoute = {
  operationId: 'resolveConfig',
  path: '/v2/notifications/config/resolve',
  request: resolveConfigRequest,
  result: resolveConfigResult,
  message: RESOLVE_CONFIG_MESSAGE,
  scope: 'resolve',
  // Reads only: every user's document and organization entries, 100 keys per batched read, and
  // the organization's policy (cached for policyCacheSeconds).
  function: { tables: { config: ['BatchGetItem', 'GetItem'] }, settings: ['deliveryDefaults', 'policyCache'] },
} as const satisfies Route;
