import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { once } from '#shared/platform/once.js';
import { accessOf, type Route } from '#shared/platform/route.js';
import { policySchema } from '../schema.js';
import { POLICY_STORE_GRANTS } from '../store.js';

/** POST /v2/organizations/policy/set */
export const setPolicyRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  policy: policySchema(),
  expectedVersion: z.optional(
    z
      .int({ error: 'expectedVersion must be a whole number, 0 or more' })
      .check(z.minimum(0, { error: 'expectedVersion must be a whole number, 0 or more' })),
  ),
});
export type SetPolicyRequest = z.infer<typeof setPolicyRequest>;

export const setPolicyResult = once(() => z.strictObject({ version: z.int(), updatedAt: z.iso.datetime() }));
export type SetPolicyResult = z.output<ReturnType<typeof setPolicyResult>>;

export const SET_POLICY_MESSAGE = 'Organization policy set successfully.';

export const setPolicyRoute = {
  operationId: 'setPolicy',
  path: '/v2/organizations/policy/set',
  request: setPolicyRequest,
  result: setPolicyResult,
  message: SET_POLICY_MESSAGE,
  scope: 'admin',
  // One conditional update of the organization's policy item (keys.ts).
  function: accessOf(POLICY_STORE_GRANTS.put),
} as const satisfies Route;
