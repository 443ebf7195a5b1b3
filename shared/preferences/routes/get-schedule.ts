import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { once } from '#shared/platform/once.js';
import { accessOf, type Route } from '#shared/platform/route.js';
import { schedule } from '#shared/schedules/schema.js';
import { SCHEDULE_STORE_GRANTS } from '../store-grants.js';

/** POST /v2/notifications/schedule/get */
export const getScheduleRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userId: identifier('userId'),
});
export type GetScheduleRequest = z.infer<typeof getScheduleRequest>;

export const getScheduleResult = once(() => z.strictObject({ userId: z.string(), schedule: z.nullable(schedule()) }));
export type GetScheduleResult = z.output<ReturnType<typeof getScheduleResult>>;

export const GET_SCHEDULE_MESSAGE = 'User schedule retrieved successfully.';

export const getScheduleRoute = {
  operationId: 'getSchedule',
  path: '/v2/notifications/schedule/get',
  request: getScheduleRequest,
  result: getScheduleResult,
  message: GET_SCHEDULE_MESSAGE,
  scope: 'read',
  // The user's organization-level entry, which holds the schedule: one consistent read.
  function: accessOf(SCHEDULE_STORE_GRANTS.getEntries),
} as const satisfies Route;
