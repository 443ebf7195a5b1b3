import * as z from 'zod/mini';
import { CHANNELS, type Channel } from '#shared/api/channels.js';
import { ApiError } from '#shared/api/errors.js';
import { once } from '#shared/platform/once.js';
import { timeZoneIssue } from './zone.js';

// A user's delivery schedule (contract section 12.1): the `schedule` of schedule/set. Request
// schemas run in every function, so they use zod's mini API, like the other domains'. Messages
// name the field; the HTTP edge prefixes the path (`data.schedule.quietHours[0].end: ...`). The
// schema is built on first use (once.ts): resolve and the pages import this module for its rules
// and most of them never parse a schedule.

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const MAX_QUIET_RULES = 7;
export const MAX_SNOOZE_DAYS = 31;
/** The channels a quiet-hours rule covers when it names none: the inbox keeps collecting. */
export const DEFAULT_QUIET_CHANNELS: readonly Channel[] = ['email', 'slack'];
/** The channels a snooze covers (contract 12.1): never the inbox. */
export const SNOOZE_CHANNELS: readonly Channel[] = ['email', 'slack'];
export const MINUTES_PER_WEEK = 7 * 24 * 60;

const ONE_OF_CHANNELS = `one of ${CHANNELS.join(', ')}`;
const ONE_OF_WEEKDAYS = `one of ${WEEKDAYS.join(', ')}`;
const HH_MM = /^(?:[01]\d|2[0-3]):[0-5]\d$/;

/** Minutes after midnight of a validated `HH:MM`. */
export const minuteOfDay = (clock: string): number => {
  if (!HH_MM.test(clock)) throw new RangeError(`not a time HH:MM: ${clock}`);
  return Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));
};

/** A wall-clock time, `00:00` to `23:59`, two digits each (so neither `24:00` nor `7:5`). */
const clockTime = (name: string) => {
  const error = `${name} must be a time HH:MM, 00:00 to 23:59`;
  return z.string({ error }).check(z.regex(HH_MM, { error }));
};

const weekday = (name: string) => z.enum(WEEKDAYS, { error: `${name} must be ${ONE_OF_WEEKDAYS}` });

/** Whole-object checks run only on an object whose fields are all valid (zod runs them regardless). */
const whenWellFormed = { when: (payload: { issues: readonly unknown[] }) => payload.issues.length === 0 };

const distinct = (values: readonly unknown[]) => new Set(values).size === values.length;

/** A list of distinct channels, `min` to 3 of them. */
const channelList = (name: string, min: number) =>
  z
    .array(z.enum(CHANNELS, { error: `${name} entries must be ${ONE_OF_CHANNELS}` }), {
      error: `${name} must be an array of channel names`,
    })
    .check(
      z.minLength(min, { error: `${name} must name at least ${min} of ${CHANNELS.join(', ')}` }),
      z.refine(distinct, { error: `${name} must not repeat a channel` }),
    );

/** An ISO-8601 instant with a UTC offset or `Z` (`2026-03-29T08:00:00Z`, `...T10:00:00+02:00`). */
export const instant = (name: string) =>
  z.iso.datetime({
    offset: true,
    error: `${name} must be an ISO-8601 instant with seconds and a UTC offset or Z, such as 2026-03-29T08:00:00Z`,
  });

const timeZone = () =>
  z.string({ error: 'timeZone must be a string' }).check(
    z.superRefine((name: string, context) => {
      const issue = timeZoneIssue(name);
      if (issue) context.addIssue({ code: 'custom', message: issue, input: name });
    }),
  );

/** One quiet-hours rule: on each of `days`, from `start` to `end` (the next day's when `start > end`). */
const quietHoursRule = () =>
  z
    .strictObject(
      {
        days: z
          .array(weekday('days entries'), { error: `days must be an array of weekdays (${ONE_OF_WEEKDAYS})` })
          .check(
            z.minLength(1, { error: 'days must name at least 1 weekday' }),
            z.maxLength(7, { error: 'days must name at most 7 weekdays' }),
            z.refine(distinct, { error: 'days must not repeat a weekday' }),
          ),
        start: clockTime('start'),
        end: clockTime('end'),
        channels: z._default(channelList('channels', 1), () => [...DEFAULT_QUIET_CHANNELS]),
      },
      { error: (issue) => (issue.code === 'invalid_type' ? 'quietHours entries must be objects' : undefined) },
    )
    .check(
      z.superRefine((rule, context) => {
        if (rule.start === rule.end) {
          context.addIssue({ code: 'custom', message: 'end must differ from start', path: ['end'], input: rule.end });
        }
      }, whenWellFormed),
    );

const digest = () =>
  z
    .strictObject(
      {
        channels: channelList('channels', 1),
        cadence: z.enum(['daily', 'weekly'], { error: 'cadence must be one of daily, weekly' }),
        at: clockTime('at'),
        day: z.optional(weekday('day')),
      },
      { error: (issue) => (issue.code === 'invalid_type' ? 'digest must be an object' : undefined) },
    )
    .check(
      z.superRefine((value, context) => {
        if (value.cadence === 'weekly' && value.day === undefined) {
          context.addIssue({
            code: 'custom',
            message: 'day is required for a weekly digest',
            path: ['day'],
            input: value,
          });
        }
        if (value.cadence === 'daily' && value.day !== undefined) {
          context.addIssue({
            code: 'custom',
            message: 'day must not be set for a daily digest',
            path: ['day'],
            input: value.day,
          });
        }
      }),
    );

/** The rules a channel follows: those naming it, or, naming none, covering the default channels. */
export const rulesOfChannel = <R extends { channels?: readonly Channel[] | undefined }>(
  rules: readonly R[] | undefined,
  channel: Channel,
): R[] => (rules ?? []).filter((rule) => (rule.channels ?? DEFAULT_QUIET_CHANNELS).includes(channel));

/**
 * The channels that `rules` leave no free minute in a week. Closed form: each rule is one
 * interval of the week's 10,080 minutes per day it names (split at the week's end when it
 * crosses Sunday midnight); the channel is never free if their union, swept in order, covers
 * the whole week. Wall-clock minutes: daylight-saving changes do not enter this check.
 */
export const channelsWithoutFreeMinute = (
  rules: readonly { days: readonly Weekday[]; start: string; end: string; channels?: readonly Channel[] }[],
): Channel[] =>
  CHANNELS.filter((channel) => {
    const intervals: [number, number][] = [];
    for (const rule of rulesOfChannel(rules, channel)) {
      const start = minuteOfDay(rule.start);
      const end = minuteOfDay(rule.end);
      for (const day of rule.days) {
        const from = WEEKDAYS.indexOf(day) * 1440 + start;
        const to = WEEKDAYS.indexOf(day) * 1440 + (end > start ? end : end + 1440);
        if (to <= MINUTES_PER_WEEK) intervals.push([from, to]);
        else intervals.push([from, MINUTES_PER_WEEK], [0, to - MINUTES_PER_WEEK]);
      }
    }
    intervals.sort((a, b) => a[0] - b[0]);
    let covered = 0;
    for (const [from, to] of intervals) {
      if (from > covered) return false;
      covered = Math.max(covered, to);
    }
    return covered >= MINUTES_PER_WEEK;
  });

/**
 * The `schedule` of schedule/set. The request time is no part of the schema (a route's schema
 * is built once): `snoozeIssue` checks the 31 days.
 */
export const schedule = once(() =>
  z
    .strictObject(
      {
        timeZone: timeZone(),
        quietHours: z.optional(
          z
            .array(quietHoursRule(), { error: 'quietHours must be an array of rules' })
            .check(z.maxLength(MAX_QUIET_RULES, { error: `quietHours must have at most ${MAX_QUIET_RULES} rules` })),
        ),
        snoozeUntil: z.optional(z.nullable(instant('snoozeUntil'))),
        digest: z.optional(digest()),
      },
      { error: (issue) => (issue.code === 'invalid_type' ? 'schedule must be an object' : undefined) },
    )
    .check(
      z.superRefine((value, context) => {
        const blocked = channelsWithoutFreeMinute(value.quietHours ?? []);
        if (blocked.length > 0) {
          context.addIssue({
            code: 'custom',
            message: `quietHours must leave ${blocked.join(', ')} at least one free minute in the week`,
            path: ['quietHours'],
            input: value.quietHours,
          });
        }
      }, whenWellFormed),
    ),
);

/** A schedule as stored and answered: quiet-hours rules with their channels filled in. */
export type Schedule = z.output<ReturnType<typeof schedule>>;
/** A schedule as a client writes it (a rule's channels may be left out). */
export type ScheduleInput = z.input<ReturnType<typeof schedule>>;
export type QuietHoursRule = z.output<ReturnType<typeof quietHoursRule>>;
export type Digest = z.output<ReturnType<typeof digest>>;

const MAX_SNOOZE_MS = MAX_SNOOZE_DAYS * 24 * 60 * 60 * 1000;

/**
 * The check of `snoozeUntil` that needs the request's time: at most 31 days (of 24 hours) after
 * it. A snooze already over is accepted (it covers nothing). Answers the message, or undefined.
 */
export const snoozeIssue = (
  value: { snoozeUntil?: string | null | undefined },
  requestTime: Date,
): string | undefined => {
  if (value.snoozeUntil === undefined || value.snoozeUntil === null) return undefined;
  return Date.parse(value.snoozeUntil) - requestTime.getTime() > MAX_SNOOZE_MS
    ? `snoozeUntil must be at most ${MAX_SNOOZE_DAYS} days after the request`
    : undefined;
};

/**
 * snoozeIssue as the edge words a refused request: INVALID_ARGUMENT whose message names the
 * field by its path in the request (`data.schedule` by default) and whose details list the issue.
 */
export const assertSnoozeWithin = (
  value: { snoozeUntil?: string | null | undefined },
  requestTime: Date,
  path = 'data.schedule',
): void => {
  const message = snoozeIssue(value, requestTime);
  if (!message) return;
  const field = `${path}.snoozeUntil`;
  throw new ApiError('INVALID_ARGUMENT', `${field}: ${message}`, [{ path: field, message }]);
};
