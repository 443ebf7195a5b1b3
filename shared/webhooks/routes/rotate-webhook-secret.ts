import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { once } from '#shared/platform/once.js';
import { accessOf, type Route } from '#shared/platform/route.js';
import { endpointId } from '../schema.js';
import { WEBHOOK_STORE_GRANTS } from '../store.js';

/** POST /v2/organizations/webhooks/rotate-secret */
export const rotateWebhookSecretRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  endpointId: endpointId('endpointId'),
});
export type RotateWebhookSecretRequest = z.infer<typeof rotateWebhookSecretRequest>;

export const rotateWebhookSecretResult = once(() => z.strictObject({ secret: z.string() }));
export type RotateWebhookSecretResult = z.output<ReturnType<typeof rotateWebhookSecretResult>>;

export const ROTATE_WEBHOOK_SECRET_MESSAGE = 'Webhook secret rotated successfully.';

export const rotateWebhookSecretRoute = {
  operationId: 'rotateWebhookSecret',
  path: '/v2/organizations/webhooks/rotate-secret',
  request: rotateWebhookSecretRequest,
  result: rotateWebhookSecretResult,
  message: ROTATE_WEBHOOK_SECRET_MESSAGE,
  scope: 'admin',
  // Read the endpoint's sealed secret, seal a new one (the link keys), one conditional update.
  function: { ...accessOf(WEBHOOK_STORE_GRANTS.get, WEBHOOK_STORE_GRANTS.rotate), secrets: ['linkKeys'] },
} as const satisfies Route;
