import { MAX_USER_IDS } from '#shared/api/identifiers.js';
import type { getScheduleRoute } from '#shared/preferences/routes/get-schedule.js';
import type { setScheduleRoute } from '#shared/preferences/routes/set-schedule.js';
import { MAX_QUIET_RULES, MAX_SNOOZE_DAYS, type ScheduleInput } from '#shared/schedules/schema.js';
import { BODY_RULE, COMMON_ERRORS, IDENTIFIER_RULE, type OperationDocs, WRITE_ERRORS } from './common.js';

const BERLIN_NIGHTS: ScheduleInput = {
  timeZone: 'Europe/Berlin',
  quietHours: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '22:00', end: '07:00' }],
};

export const setScheduleDocs: OperationDocs<typeof setScheduleRoute> = {
  tag: 'Delivery schedules',
  name: 'SetSchedule',
  summary: "Replace users' delivery schedules: time zone, quiet hours, snooze, digest",
  description: [
    "Sets each user's whole schedule in the organization (null removes it). config/resolve then says, per",
    'channel, whether an activity goes out now, later (and when), or in a digest. `timeZone` is an IANA zone',
    'name (`Europe/Berlin`); every time of day is wall-clock time in it, following its daylight-saving changes',
    '(a time the clock skips moves forward by the gap; a repeated one means the first occurrence).',
    '',
    '- `quietHours`: rules `{days, start, end, channels?}`: on each named weekday from `start` (included) to',
    '  `end` (excluded), the next day when `start` is after `end`. `channels` defaults to email and slack (the',
    '  inbox keeps collecting); rules must leave each channel at least one free minute a week.',
    `- \`snoozeUntil\`: an instant at most ${MAX_SNOOZE_DAYS} days after the request (or null): email and slack wait until then.`,
    '- `digest`: `{channels, cadence: daily|weekly, at: "HH:MM", day?}` (`day` for weekly only): those channels',
    '  are collected and delivered at the next slot.',
    '',
    `Limits: \`userIds\` 1 to ${MAX_USER_IDS} entries (duplicates collapsed); at most ${MAX_QUIET_RULES} quiet-hours rules;`,
    `times \`HH:MM\` from 00:00 to 23:59; days \`mon\` to \`sun\`, each at most once per rule. ${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: WRITE_ERRORS,
  examples: {
    quietHours: {
      summary: 'bob: no email or Slack on weekday nights, in Berlin time',
      value: { organizationId: 'acme', userIds: ['bob'], schedule: BERLIN_NIGHTS },
      result: {
        bob: { success: true, userId: 'bob', documentId: null, scope: 'organization', message: 'Schedule set.' },
      },
    },
    digest: {
      summary: 'carol: email as a daily digest at 08:00 in New York',
      value: {
        organizationId: 'acme',
        userIds: ['carol'],
        schedule: { timeZone: 'America/New_York', digest: { channels: ['email'], cadence: 'daily', at: '08:00' } },
      },
      result: {
        carol: { success: true, userId: 'carol', documentId: null, scope: 'organization', message: 'Schedule set.' },
      },
    },
    remove: {
      summary: "dave's schedule removed (null)",
      value: { organizationId: 'acme', userIds: ['dave'], schedule: null },
      result: {
        dave: { success: true, userId: 'dave', documentId: null, scope: 'organization', message: 'Schedule set.' },
      },
    },
  },
  invalidExample: {
    summary: 'An unknown zone, 24:00, and a weekly digest without a day',
    value: {
      organizationId: 'acme',
      userIds: ['bob'],
      schedule: {
        timeZone: 'Mars/Olympus',
        quietHours: [{ days: ['mon'], start: '24:00', end: '07:00' }],
        digest: { channels: ['email'], cadence: 'weekly', at: '08:00' },
      },
    },
  },
  fields: {
    request: { schedule: 'The whole schedule, replacing the stored one; null removes it.' },
    result: { '': 'One entry per distinct user id, keyed by that id.' },
  },
};

export const getScheduleDocs: OperationDocs<typeof getScheduleRoute> = {
  tag: 'Delivery schedules',
  name: 'GetSchedule',
  summary: "Read a user's delivery schedule",
  description: [
    "The user's schedule in the organization as stored (each quiet-hours rule with its channels, instants in UTC),",
    'or `null` when there is none.',
    '',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: COMMON_ERRORS,
  examples: {
    schedule: {
      summary: "bob's schedule",
      value: { organizationId: 'acme', userId: 'bob' },
      result: {
        userId: 'bob',
        schedule: {
          timeZone: 'Europe/Berlin',
          quietHours: [
            { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '22:00', end: '07:00', channels: ['email', 'slack'] },
          ],
        },
      },
    },
    none: {
      summary: 'A user without a schedule',
      value: { organizationId: 'acme', userId: 'dave' },
      result: { userId: 'dave', schedule: null },
    },
  },
  invalidExample: { summary: 'Missing userId', value: { organizationId: 'acme' } },
  fields: { result: { schedule: 'The stored schedule, or null.' } },
};
