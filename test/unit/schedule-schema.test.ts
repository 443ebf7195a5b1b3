import { describe, expect, test } from '@jest/globals';
import * as z from 'zod/mini';
import { ApiError } from '#shared/api/errors.js';
import {
  assertSnoozeWithin,
  channelsWithoutFreeMinute,
  schedule,
  snoozeIssue,
  WEEKDAYS,
} from '#shared/schedules/schema.js';

/** Each issue as `path: message`, the path as the HTTP edge writes it under `data.schedule`. */
const issues = (value: unknown): string[] => {
  const result = z.safeParse(schedule(), value);
  if (result.success) return [];
  return result.error.issues.map(
    (issue) =>
      // Unknown keys are worded by the HTTP edge (zod's own wording depends on whether a locale was loaded).
      `${issue.path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : `${text}.${String(key)}`), 'schedule')}: ${issue.code === 'unrecognized_keys' ? `unknown key(s) ${issue.keys.join(', ')}` : issue.message}`,
  );
};

const SNOOZE_FORMAT =
  'schedule.snoozeUntil: snoozeUntil must be an ISO-8601 instant with seconds and a UTC offset or Z, such as 2026-03-29T08:00:00Z';
const ALL_DAYS = [...WEEKDAYS];
const zone = { timeZone: 'Europe/Berlin' };
const rule = (fields: Record<string, unknown>) => ({ days: ['mon'], start: '22:00', end: '07:00', ...fields });
const withRule = (fields: Record<string, unknown>) => ({ ...zone, quietHours: [rule(fields)] });
const digest = (fields: Record<string, unknown>) => ({
  ...zone,
  digest: { channels: ['email'], cadence: 'daily', at: '08:00', ...fields },
});

describe('valid schedules are accepted', () => {
  test.each([
    ['a zone alone', zone],
    ['a current IANA name ICU spells otherwise', { timeZone: 'Asia/Kolkata' }],
    ['UTC', { timeZone: 'UTC' }],
    [
      'every field',
      {
        timeZone: 'America/New_York',
        quietHours: [
          { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '22:00', end: '07:00' },
          { days: ['sat', 'sun'], start: '00:00', end: '23:59', channels: ['inbox', 'email', 'slack'] },
        ],
        snoozeUntil: '2026-03-29T08:00:00+02:00',
        digest: { channels: ['email', 'slack', 'inbox'], cadence: 'weekly', at: '09:30', day: 'mon' },
      },
    ],
    ['a snooze removed', { ...zone, snoozeUntil: null }],
    ['a snooze in Z with fractions', { ...zone, snoozeUntil: '2026-03-29T08:00:00.123Z' }],
    ['no quiet-hours rule', { ...zone, quietHours: [] }],
    ['seven rules', { ...zone, quietHours: ALL_DAYS.map((day) => rule({ days: [day] })) }],
    ['all seven days', withRule({ days: ALL_DAYS })],
    ['the widest times', withRule({ start: '00:00', end: '23:59' })],
    ['a window ending at midnight', withRule({ start: '23:00', end: '00:00' })],
    ['a daily digest', digest({})],
    ['a weekly digest', digest({ cadence: 'weekly', day: 'sun' })],
    // Every minute but one is quiet: Sunday 23:59 is free.
    [
      'one free minute a week',
      {
        ...zone,
        quietHours: [
          rule({ days: ALL_DAYS, start: '00:00', end: '23:59' }),
          rule({ days: ALL_DAYS.slice(0, 6), start: '23:59', end: '00:00' }),
        ],
      },
    ],
    [
      'round the clock but a minute',
      withRule({ days: ALL_DAYS, start: '07:00', end: '06:59', channels: ['inbox', 'email'] }),
    ],
    ['a rule for the inbox alone', withRule({ channels: ['inbox'] })],
  ])('%s', (_name, value) => {
    expect(issues(value)).toEqual([]);
  });

  test("a rule's channels default to email and slack", () => {
    const parsed = z.parse(schedule(), withRule({}));
    expect(parsed.quietHours?.[0]?.channels).toEqual(['email', 'slack']);
    expect(z.parse(schedule(), withRule({ channels: ['inbox'] })).quietHours?.[0]?.channels).toEqual(['inbox']);
  });
});

describe('each broken rule is refused, naming its field', () => {
  test.each([
    // timeZone
    ['no zone', {}, ['schedule.timeZone: timeZone must be a string']],
    [
      'an unknown zone',
      { timeZone: 'Mars/Olympus_Mons' },
      ['schedule.timeZone: timeZone must be an IANA time zone name, such as Europe/Berlin'],
    ],
    [
      'an offset for a zone',
      { timeZone: '+02:00' },
      ['schedule.timeZone: timeZone must be an IANA time zone name, such as Europe/Berlin'],
    ],
    [
      'an ICU id that is no IANA zone',
      { timeZone: 'SystemV/AST4' },
      ['schedule.timeZone: timeZone must be an IANA time zone name, such as Europe/Berlin'],
    ],
    [
      'a zone in the wrong case',
      { timeZone: 'europe/berlin' },
      ['schedule.timeZone: timeZone must be spelled Europe/Berlin'],
    ],
    ['a zone that is no string', { timeZone: 1 }, ['schedule.timeZone: timeZone must be a string']],
    // quietHours
    [
      'quiet hours that are no list',
      { ...zone, quietHours: {} },
      ['schedule.quietHours: quietHours must be an array of rules'],
    ],
    [
      'eight rules',
      { ...zone, quietHours: [...ALL_DAYS, 'mon'].map((day) => rule({ days: [day] })) },
      ['schedule.quietHours: quietHours must have at most 7 rules'],
    ],
    [
      'a rule that is no object',
      { ...zone, quietHours: ['22:00-07:00'] },
      ['schedule.quietHours[0]: quietHours entries must be objects'],
    ],
    ['24:00', withRule({ end: '24:00' }), ['schedule.quietHours[0].end: end must be a time HH:MM, 00:00 to 23:59']],
    ['7:5', withRule({ start: '7:5' }), ['schedule.quietHours[0].start: start must be a time HH:MM, 00:00 to 23:59']],
    [
      '07:60',
      withRule({ start: '07:60' }),
      ['schedule.quietHours[0].start: start must be a time HH:MM, 00:00 to 23:59'],
    ],
    [
      '07:00:00',
      withRule({ end: '07:00:00' }),
      ['schedule.quietHours[0].end: end must be a time HH:MM, 00:00 to 23:59'],
    ],
    [
      'a time that is no string',
      withRule({ start: 700 }),
      ['schedule.quietHours[0].start: start must be a time HH:MM, 00:00 to 23:59'],
    ],
    [
      'equal start and end',
      withRule({ start: '07:00', end: '07:00' }),
      ['schedule.quietHours[0].end: end must differ from start'],
    ],
    ['no day', withRule({ days: [] }), ['schedule.quietHours[0].days: days must name at least 1 weekday']],
    [
      'a day twice',
      withRule({ days: ['mon', 'tue', 'mon'] }),
      ['schedule.quietHours[0].days: days must not repeat a weekday'],
    ],
    [
      'eight days',
      withRule({ days: [...ALL_DAYS, 'mon'] }),
      ['schedule.quietHours[0].days: days must name at most 7 weekdays'],
    ],
    [
      'an unknown day',
      withRule({ days: ['monday'] }),
      ['schedule.quietHours[0].days[0]: days entries must be one of mon, tue, wed, thu, fri, sat, sun'],
    ],
    [
      'days that are no list',
      withRule({ days: 'mon' }),
      ['schedule.quietHours[0].days: days must be an array of weekdays (one of mon, tue, wed, thu, fri, sat, sun)'],
    ],
    [
      'no channel',
      withRule({ channels: [] }),
      ['schedule.quietHours[0].channels: channels must name at least 1 of inbox, email, slack'],
    ],
    [
      'a channel twice',
      withRule({ channels: ['email', 'email'] }),
      ['schedule.quietHours[0].channels: channels must not repeat a channel'],
    ],
    [
      'an unknown channel',
      withRule({ channels: ['sms'] }),
      ['schedule.quietHours[0].channels[0]: channels entries must be one of inbox, email, slack'],
    ],
    ['an unknown rule key', withRule({ timezone: 'UTC' }), ['schedule.quietHours[0]: unknown key(s) timezone']],
    // No free minute in a week.
    [
      'rules that chain round the week',
      {
        ...zone,
        quietHours: [
          rule({ days: ALL_DAYS, start: '07:00', end: '22:00' }),
          rule({ days: ALL_DAYS, start: '22:00', end: '07:00' }),
        ],
      },
      ['schedule.quietHours: quietHours must leave email, slack at least one free minute in the week'],
    ],
    [
      'the inbox never free',
      {
        ...zone,
        quietHours: [
          rule({ days: ALL_DAYS, start: '00:00', end: '12:00', channels: ['inbox'] }),
          rule({ days: ALL_DAYS, start: '12:00', end: '00:00', channels: ['inbox', 'slack'] }),
        ],
      },
      ['schedule.quietHours: quietHours must leave inbox at least one free minute in the week'],
    ],
    [
      "Sunday's window crossing into Monday closes the week",
      {
        ...zone,
        quietHours: [
          rule({ days: ALL_DAYS, start: '06:00', end: '00:00' }),
          rule({ days: ALL_DAYS, start: '23:00', end: '06:00' }),
        ],
      },
      ['schedule.quietHours: quietHours must leave email, slack at least one free minute in the week'],
    ],
    // snoozeUntil
    ['a snooze without offset', { ...zone, snoozeUntil: '2026-03-29T08:00:00' }, [SNOOZE_FORMAT]],
    ['a snooze without seconds', { ...zone, snoozeUntil: '2026-03-29T08:00Z' }, [SNOOZE_FORMAT]],
    ['a snooze on a day that does not exist', { ...zone, snoozeUntil: '2026-02-30T08:00:00Z' }, [SNOOZE_FORMAT]],
    ['a snooze as a date', { ...zone, snoozeUntil: '2026-03-29' }, [SNOOZE_FORMAT]],
    ['a snooze as epoch milliseconds', { ...zone, snoozeUntil: 1774771200000 }, [SNOOZE_FORMAT]],
    // digest
    ['a digest that is no object', { ...zone, digest: 'daily' }, ['schedule.digest: digest must be an object']],
    [
      'a digest of no channel',
      digest({ channels: [] }),
      ['schedule.digest.channels: channels must name at least 1 of inbox, email, slack'],
    ],
    [
      'a digest naming a channel twice',
      digest({ channels: ['email', 'slack', 'email'] }),
      ['schedule.digest.channels: channels must not repeat a channel'],
    ],
    [
      'a digest of four channels',
      digest({ channels: ['email', 'slack', 'inbox', 'email'] }),
      ['schedule.digest.channels: channels must not repeat a channel'],
    ],
    [
      'an unknown cadence',
      digest({ cadence: 'hourly' }),
      ['schedule.digest.cadence: cadence must be one of daily, weekly'],
    ],
    ['a digest at 24:00', digest({ at: '24:00' }), ['schedule.digest.at: at must be a time HH:MM, 00:00 to 23:59']],
    [
      'a weekly digest without a day',
      digest({ cadence: 'weekly' }),
      ['schedule.digest.day: day is required for a weekly digest'],
    ],
    [
      'a daily digest with a day',
      digest({ day: 'mon' }),
      ['schedule.digest.day: day must not be set for a daily digest'],
    ],
    [
      'a weekly digest on an unknown day',
      digest({ cadence: 'weekly', day: 'Monday' }),
      ['schedule.digest.day: day must be one of mon, tue, wed, thu, fri, sat, sun'],
    ],
    // the object
    ['a schedule that is no object', 'Europe/Berlin', ['schedule: schedule must be an object']],
    ['an unknown key', { ...zone, quietHour: [] }, ['schedule: unknown key(s) quietHour']],
  ])('%s', (_name, value, expected) => {
    expect(issues(value)).toEqual(expected);
  });
});

describe('the snooze is at most 31 days after the request', () => {
  const request = new Date('2026-03-01T12:00:00Z');

  test.each([
    ['no snooze', undefined],
    ['a snooze removed', null],
    ['a snooze already over', '2026-02-01T00:00:00Z'],
    ['a snooze ending now', '2026-03-01T12:00:00Z'],
    ['exactly 31 days of 24 hours', '2026-04-01T12:00:00Z'],
    ['31 days, written in another offset', '2026-04-01T14:00:00+02:00'],
  ])('%s is accepted', (_name, snoozeUntil) => {
    expect(snoozeIssue({ snoozeUntil }, request)).toBeUndefined();
    expect(() => assertSnoozeWithin({ snoozeUntil }, request)).not.toThrow();
  });

  test.each([
    ['a millisecond more', '2026-04-01T12:00:00.001Z'],
    ['a year', '2027-03-01T12:00:00Z'],
    ['31 days and an hour, written in another offset', '2026-04-01T15:00:00+02:00'],
  ])('%s is refused', (_name, snoozeUntil) => {
    expect(snoozeIssue({ snoozeUntil }, request)).toBe('snoozeUntil must be at most 31 days after the request');
    const refusal = (() => {
      try {
        assertSnoozeWithin({ snoozeUntil }, request);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: 'data.schedule.snoozeUntil: snoozeUntil must be at most 31 days after the request',
      details: [
        { path: 'data.schedule.snoozeUntil', message: 'snoozeUntil must be at most 31 days after the request' },
      ],
    });
  });
});

describe('free minutes: closed form over the weekly windows', () => {
  const week = (start: string, end: string, days = ALL_DAYS) => ({ days, start, end });

  test.each([
    ['nothing', [], []],
    ['the nights', [week('22:00', '07:00')], []],
    ['round the clock by two rules', [week('07:00', '22:00'), week('22:00', '07:00')], ['email', 'slack']],
    ['overlapping rules', [week('06:00', '23:00'), week('22:00', '07:00')], ['email', 'slack']],
    ['a gap of one minute', [week('07:00', '22:00'), week('22:01', '07:00')], []],
    [
      'Monday night left out',
      [week('07:00', '22:00'), week('22:00', '07:00', ['tue', 'wed', 'thu', 'fri', 'sat', 'sun'])],
      [],
    ],
    [
      'a window crossing the end of the week',
      [week('00:00', '23:00'), week('23:00', '00:00', ['sun']), week('23:00', '00:00', ALL_DAYS.slice(0, 6))],
      ['email', 'slack'],
    ],
    [
      'rules per channel',
      [
        { ...week('07:00', '22:00'), channels: ['inbox', 'email'] },
        { ...week('22:00', '07:00'), channels: ['email'] },
      ],
      ['email'],
    ],
  ] as const)('%s', (_name, rules, blocked) => {
    expect(channelsWithoutFreeMinute(rules as never)).toEqual(blocked);
  });
});
