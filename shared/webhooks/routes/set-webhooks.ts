import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { once } from '#shared/platform/once.js';
import { accessOf, type Route } from '#shared/platform/route.js';
import { endpointsInput, endpointView } from '../schema.js';
import { WEBHOOK_STORE_GRANTS } from '../store.js';

/** POST /v2/organizations/webhooks/set */
export const setWebhooksRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  endpoints: endpointsInput,
});
export type SetWebhooksRequest = z.infer<typeof setWebhooksRequest>;

export const setWebhooksResult = once(() =>
  z.strictObject({
    endpoints: z.array(z.extend(endpointView(), { secret: z.optional(z.string()) })),
  }),
);
export type SetWebhooksResult = z.output<ReturnType<typeof setWebhooksResult>>;

export const SET_WEBHOOKS_MESSAGE = 'Webhooks set successfully.';

export const setWebhooksRoute = {
  operationId: 'setWebhooks',
  path: '/v2/organizations/webhooks/set',
  request: setWebhooksRequest,
  result: setWebhooksResult,
  message: SET_WEBHOOKS_MESSAGE,
  scope: 'admin',
  // Read the endpoints (kept ones keep their secrets), then one conditional put; new secrets are
  // sealed under a key derived from the link keys (shared/webhooks/secrets.ts).
  function: { ...accessOf(WEBHOOK_STORE_GRANTS.get, WEBHOOK_STORE_GRANTS.put), secrets: ['linkKeys'] },
} as const satisfies Route;
