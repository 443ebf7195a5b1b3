import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { CONSENT_TEXT_STORE_GRANTS } from '#shared/consent/text-store.js';
import { once } from '#shared/platform/once.js';
import { accessOf, MAX_HTTP_TIMEOUT_SECONDS, type Route } from '#shared/platform/route.js';
import { POLICY_STORE_GRANTS } from '#shared/policy/store.js';
import { userWriteMap } from '../results.js';
import { category, channelConfig, consent, documentIds, userIds } from '../schemas.js';
import { PREFERENCE_STORE_GRANTS } from '../store-grants.js';

/** POST /v2/notifications/config/set */
export const setConfigRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userIds,
  documentIds: z.optional(documentIds),
  config: channelConfig,
  category,
  consent,
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
    // A slow table gets all the time the HTTP API allows.
    timeoutSeconds: MAX_HTTP_TIMEOUT_SECONDS,
    // One full vCPU (FULL_VCPU_MB in the bench): the largest set is 5,000 UpdateItems, some 1 ms of
    // the SDK's CPU each, and answers within a quarter of the 29 s only with it (npm run bench --
    // --only=largest). Small sets wait on DynamoDB, not the CPU, so they cost 3.5 times as much
    // per millisecond as at 512 MB: some $1 more a million 50 ms calls.
    memoryMb: 1769,
    // The store's set of each entry; the organization's policy read for its locks; a consent's text stored once.
    ...accessOf(PREFERENCE_STORE_GRANTS.setChannels, POLICY_STORE_GRANTS.get, CONSENT_TEXT_STORE_GRANTS.putText),
    settings: ['policyCache'],
  },
} as const satisfies Route;
