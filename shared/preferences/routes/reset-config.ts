import * as z from 'zod/mini';
import { CHANNELS, type Channel } from '#shared/api/channels.js';
import { identifier } from '#shared/api/identifiers.js';
import { CONSENT_TEXT_STORE_GRANTS } from '#shared/consent/text-store.js';
import { once } from '#shared/platform/once.js';
import { accessOf, MAX_HTTP_TIMEOUT_SECONDS, type Route } from '#shared/platform/route.js';
import { userWriteMap } from '../results.js';
import { category, consent, documentIds, userIds } from '../schemas.js';
import { PREFERENCE_STORE_GRANTS } from '../store-grants.js';

const ONE_OF_CHANNELS = `one of ${CHANNELS.join(', ')}`;

export const channels = z
  .array(z.enum(CHANNELS, { error: `channels entries must be ${ONE_OF_CHANNELS}` }), {
    error: 'channels must be an array of channel names',
  })
  .check(
    z.minLength(1, { error: `channels must name at least 1 of ${CHANNELS.join(', ')} when present` }),
    z.refine((names: Channel[]) => new Set(names).size === names.length, {
      error: 'channels must not repeat a channel',
    }),
  );

/** POST /v2/notifications/config/reset */
export const resetConfigRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userIds,
  documentIds: z.optional(documentIds),
  channels: z.optional(channels),
  category,
  consent,
});
export type ResetConfigRequest = z.infer<typeof resetConfigRequest>;

export const resetConfigResult = once(userWriteMap);
export type ResetConfigResult = z.output<ReturnType<typeof resetConfigResult>>;

export const RESET_CONFIG_MESSAGE = 'User config reset successfully.';

export const resetConfigRoute = {
  operationId: 'resetConfig',
  path: '/v2/notifications/config/reset',
  request: resetConfigRequest,
  result: resetConfigResult,
  message: RESET_CONFIG_MESSAGE,
  scope: 'write',
  function: {
    // As many writes as the largest set: all the time the HTTP API allows.
    timeoutSeconds: MAX_HTTP_TIMEOUT_SECONDS,
    // Up to two writes per entry where a set sends one (the reset, then an emptied entry's
    // tombstone or delete): twice a set's CPU for the largest request, within half the timeout
    // only with one full vCPU (npm run bench -- --only=largest). Small resets wait on DynamoDB,
    // not the CPU, so they cost 3.5 times as much per millisecond as at 512 MB: some $1 more a
    // million 50 ms calls.
    memoryMb: 1769,
    ...accessOf(PREFERENCE_STORE_GRANTS.resetChannels, CONSENT_TEXT_STORE_GRANTS.putText),
  },
} as const satisfies Route;
