import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { CONSENT_TEXT_STORE_GRANTS } from '#shared/consent/text-store.js';
import { once } from '#shared/platform/once.js';
import { accessOf, MAX_HTTP_TIMEOUT_SECONDS, type Route } from '#shared/platform/route.js';
import { schedule } from '#shared/schedules/schema.js';
import { userWriteMap } from '../results.js';
import { consent, userIds } from '../schemas.js';
import { SCHEDULE_STORE_GRANTS } from '../store-grants.js';

/** POST /v2/notifications/schedule/set */
export const setScheduleRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userIds,
  /** The whole schedule, replacing the stored one; null removes it. */
  schedule: z.nullable(schedule()),
  consent,
});
export type SetScheduleRequest = z.infer<typeof setScheduleRequest>;

export const setScheduleResult = once(userWriteMap);
export type SetScheduleResult = z.output<ReturnType<typeof setScheduleResult>>;

export const SET_SCHEDULE_MESSAGE = 'User schedule set successfully.';

export const setScheduleRoute = {
  operationId: 'setSchedule',
  path: '/v2/notifications/schedule/set',
  request: setScheduleRequest,
  result: setScheduleResult,
  message: SET_SCHEDULE_MESSAGE,
  scope: 'write',
  function: {
    // Up to 1000 users' organization-level entries, like the largest config/set of one document.
    timeoutSeconds: MAX_HTTP_TIMEOUT_SECONDS,
    ...accessOf(SCHEDULE_STORE_GRANTS.setSchedule, CONSENT_TEXT_STORE_GRANTS.putText),
  },
} as const satisfies Route;
