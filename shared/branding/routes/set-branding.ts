import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { once } from '#shared/platform/once.js';
import { accessOf, type Route } from '#shared/platform/route.js';
import { brandingSchema } from '../schema.js';
import { BRANDING_STORE_GRANTS } from '../store.js';

/** POST /v2/organizations/branding/set */
export const setBrandingRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  branding: z.nullable(brandingSchema()),
});
export type SetBrandingRequest = z.infer<typeof setBrandingRequest>;

export const setBrandingResult = once(() => z.strictObject({ updatedAt: z.iso.datetime() }));
export type SetBrandingResult = z.output<ReturnType<typeof setBrandingResult>>;

export const SET_BRANDING_MESSAGE = 'Organization branding set successfully.';

export const setBrandingRoute = {
  operationId: 'setBranding',
  path: '/v2/organizations/branding/set',
  request: setBrandingRequest,
  result: setBrandingResult,
  message: SET_BRANDING_MESSAGE,
  scope: 'admin',
  // One put of the organization's branding item (keys.ts), or its delete for null.
  function: accessOf(BRANDING_STORE_GRANTS.put, BRANDING_STORE_GRANTS.remove),
} as const satisfies Route;
