import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { once } from '#shared/platform/once.js';
import { accessOf, type Route } from '#shared/platform/route.js';
import { endpointView } from '../schema.js';
import { WEBHOOK_STORE_GRANTS } from '../store.js';

/** POST /v2/organizations/webhooks/get */
export const getWebhooksRequest = z.strictObject({ organizationId: identifier('organizationId') });
export type GetWebhooksRequest = z.infer<typeof getWebhooksRequest>;

export const getWebhooksResult = once(() => z.strictObject({ endpoints: z.array(endpointView()) }));
export type GetWebhooksResult = z.output<ReturnType<typeof getWebhooksResult>>;

export const GET_WEBHOOKS_MESSAGE = 'Webhooks retrieved successfully.';

export const getWebhooksRoute = {
  operationId: 'getWebhooks',
  path: '/v2/organizations/webhooks/get',
  request: getWebhooksRequest,
  result: getWebhooksResult,
  message: GET_WEBHOOKS_MESSAGE,
  scope: 'read',
  // One consistent read; no secret is opened.
  function: accessOf(WEBHOOK_STORE_GRANTS.get),
} as const satisfies Route;
