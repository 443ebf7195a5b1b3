import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { once } from '#shared/platform/once.js';
import { accessOf, type Route } from '#shared/platform/route.js';
import { resolution, scope, storedCategories, storedChannelConfig, trace } from '../results.js';
import { category, documentIds } from '../schemas.js';
import { PREFERENCE_STORE_GRANTS } from '../store-grants.js';

/** POST /v2/notifications/config/get */
export const getConfigRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userId: identifier('userId'),
  documentIds: z.optional(documentIds),
  category,
  explain: z.optional(z.boolean({ error: 'explain must be true or false' })),
});
export type GetConfigRequest = z.infer<typeof getConfigRequest>;

/** One item of the answer: what is stored for the entry, and every channel resolved. */
export const configView = once(() =>
  z.strictObject({
    userId: z.string(),
    documentId: z.nullable(z.string()),
    scope: scope(),
    config: storedChannelConfig(),
    categories: storedCategories(),
    ...resolution(),
    trace: z.optional(trace()),
  }),
);
export type ConfigView = z.output<ReturnType<typeof configView>>;

export const getConfigResult = once(() => z.array(configView()));
export type GetConfigResult = z.output<ReturnType<typeof getConfigResult>>;

export const GET_CONFIG_MESSAGE = 'User config retrieved successfully.';

export const getConfigRoute = {
  operationId: 'getConfig',
  path: '/v2/notifications/config/get',
  request: getConfigRequest,
  result: getConfigResult,
  message: GET_CONFIG_MESSAGE,
  scope: 'read',
  // The entries and the organization's policy in one batched read (the policy cached for policyCacheSeconds).
  function: {
    ...accessOf(PREFERENCE_STORE_GRANTS.getEntriesWithPolicy),
    settings: ['deliveryDefaults', 'policyCache'],
  },
} as const satisfies Route;
