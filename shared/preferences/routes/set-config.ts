import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { once } from '#shared/platform/once.js';
import { accessOf, MAX_HTTP_TIMEOUT_SECONDS, type Route } from '#shared/platform/route.js';
import { POLICY_STORE_GRANTS } from '#shared/policy/store.js';
import { userWriteMap } from '../results.js';
import { category, channelConfig, documentIds, userIds } from '../schemas.js';
import { PREFERENCE_STORE_GRANTS } from '../store-grants.js';

/** POST /v2/notifications/config/set */
export const setConfigRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userIds,
  documentIds: z.optional(documentIds),
  config: channelConfig,
  category,
});
export type SetConfigRequest = z.infer<typeof setConfigRequest>;

export const setConfigResult = once(userWriteMap);
export type SetConfigResult = z.output<ReturnType<typeof setConfigResult>>;

export const SET_CONFIG_MESSAGE = 'User config set successfully.';

export const setConfigRoute = {
  operationId: 'setConfig',
  path: '/v2/notifications/config/set',
  request: setConfigRequest,
  result: setConfigResult,
  message: SET_CONFIG_MESSAGE,
  scope: 'write',
  function: {
    // The largest set (5,000 entries) is well within it; a slow table still gets all the time the HTTP API allows.
    timeoutSeconds: MAX_HTTP_TIMEOUT_SECONDS,
    // The store's set of each entry; the organization's policy read for its locks.
    ...accessOf(PREFERENCE_STORE_GRANTS.setChannels, POLICY_STORE_GRANTS.get),
    settings: ['policyCache'],
  },
} as const satisfies Route;
