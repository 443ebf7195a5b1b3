import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { once } from '#shared/platform/once.js';
import { accessOf, type Route } from '#shared/platform/route.js';
import { brandingSchema } from '../schema.js';
import { BRANDING_STORE_GRANTS } from '../store.js';

/** POST /v2/organizations/branding/get */
export const getBrandingRequest = z.strictObject({ organizationId: identifier('organizationId') });
export type GetBrandingRequest = z.infer<typeof getBrandingRequest>;

export const getBrandingResult = once(() => z.strictObject({ branding: z.nullable(brandingSchema()) }));
export type GetBrandingResult = z.output<ReturnType<typeof getBrandingResult>>;

export const GET_BRANDING_MESSAGE = 'Organization branding retrieved successfully.';

export const getBrandingRoute = {
  operationId: 'getBranding',
  path: '/v2/organizations/branding/get',
  request: getBrandingRequest,
  result: getBrandingResult,
  message: GET_BRANDING_MESSAGE,
  scope: 'read',
  // The branding as stored: one consistent read.
  function: accessOf(BRANDING_STORE_GRANTS.get),
} as const satisfies Route;
