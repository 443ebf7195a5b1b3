import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { once } from '#shared/platform/once.js';
import type { Route } from '#shared/platform/route.js';
import { userIds } from '#shared/preferences/schemas.js';

/** POST /v2/notifications/links/revoke */
export const revokeLinksRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userIds,
});
export type RevokeLinksRequest = z.infer<typeof revokeLinksRequest>;

export const revokeLinksResult = once(() =>
  z.strictObject({
    /** Every link of these users issued before this instant no longer works. */
    revokedBefore: z.iso.datetime(),
  }),
);
export type RevokeLinksResult = z.output<ReturnType<typeof revokeLinksResult>>;

export const REVOKE_LINKS_MESSAGE = 'Links revoked successfully.';

export const revokeLinksRoute = {
  operationId: 'revokeLinks',
  path: '/v2/notifications/links/revoke',
  request: revokeLinksRequest,
  result: revokeLinksResult,
  message: REVOKE_LINKS_MESSAGE,
  // What a person may do from a link is part of their preferences: revoking it is a write.
  scope: 'write',
  // One conditional update per (key, user) of a revocation item (revocation.ts), in the config table.
  function: { tables: { config: ['UpdateItem'] }, secrets: ['linkKeys'] },
} as const satisfies Route;
