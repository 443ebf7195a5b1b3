import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { once } from '#shared/platform/once.js';
import { accessOf, type Route } from '#shared/platform/route.js';
import { endpointId, eventType } from '../schema.js';
import { DELIVERY_LOG_GRANTS } from '../store.js';

/** POST /v2/organizations/webhooks/deliveries */
export const getWebhookDeliveriesRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  endpointId: endpointId('endpointId'),
  cursor: z.optional(
    z.string({ error: 'cursor must be a string' }).check(z.maxLength(200, { error: 'cursor is not valid' })),
  ),
});
export type GetWebhookDeliveriesRequest = z.infer<typeof getWebhookDeliveriesRequest>;

export const getWebhookDeliveriesResult = once(() =>
  z.strictObject({
    deliveries: z.array(
      z.strictObject({
        eventId: z.string(),
        type: eventType(),
        attempt: z.int(),
        statusCode: z.nullable(z.int()),
        durationMs: z.int(),
        attemptedAt: z.iso.datetime(),
        nextAttemptAt: z.optional(z.iso.datetime()),
      }),
    ),
    nextCursor: z.optional(z.string()),
  }),
);
export type GetWebhookDeliveriesResult = z.output<ReturnType<typeof getWebhookDeliveriesResult>>;

export const GET_WEBHOOK_DELIVERIES_MESSAGE = 'Webhook deliveries retrieved successfully.';

export const getWebhookDeliveriesRoute = {
  operationId: 'getWebhookDeliveries',
  path: '/v2/organizations/webhooks/deliveries',
  request: getWebhookDeliveriesRequest,
  result: getWebhookDeliveriesResult,
  message: GET_WEBHOOK_DELIVERIES_MESSAGE,
  scope: 'read',
  // One backward Query of the endpoint's attempts.
  function: accessOf(DELIVERY_LOG_GRANTS.list),
} as const satisfies Route;
