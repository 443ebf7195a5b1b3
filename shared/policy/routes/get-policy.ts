import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { once } from '#shared/platform/once.js';
import { accessOf, type Route } from '#shared/platform/route.js';
import { policySchema } from '../schema.js';
import { POLICY_STORE_GRANTS } from '../store.js';

/** POST /v2/organizations/policy/get */
export const getPolicyRequest = z.strictObject({ organizationId: identifier('organizationId') });
export type GetPolicyRequest = z.infer<typeof getPolicyRequest>;

export const getPolicyResult = once(() =>
  z.strictObject({
    policy: policySchema(),
    version: z.int(),
    updatedAt: z.optional(z.iso.datetime()),
    updatedBy: z.optional(z.string()),
  }),
);
export type GetPolicyResult = z.output<ReturnType<typeof getPolicyResult>>;

export const GET_POLICY_MESSAGE = 'Organization policy retrieved successfully.';

export const getPolicyRoute = {
  operationId: 'getPolicy',
  path: '/v2/organizations/policy/get',
  request: getPolicyRequest,
  result: getPolicyResult,
  message: GET_POLICY_MESSAGE,
  scope: 'read',
  // The policy as stored, never from a cache: one consistent read.
  function: accessOf(POLICY_STORE_GRANTS.get),
} as const satisfies Route;
