import { describe, expect, test } from '@jest/globals';
import type { Channel } from '#shared/api/channels.js';
import { decideChannel } from '#shared/schedules/decide.js';
import {
  firstFreeInstant,
  isQuiet,
  nextDigestSlot,
  type QuietHoursLike,
  quietWindows,
} from '#shared/schedules/next-instant.js';
import type { Weekday } from '#shared/schedules/schema.js';
import { daysFromCivil } from '#shared/schedules/zone.js';

// The daylight-saving edges of three zones, with every expected instant written out.
// Europe/Berlin 2026: 02:00 CET -> 03:00 CEST on Sunday 03-29 (01:00Z); 03:00 CEST -> 02:00 CET
// on Sunday 10-25 (01:00Z). America/New_York 2026: 02:00 EST -> 03:00 EDT on Sunday 03-08
// (07:00Z); 02:00 EDT -> 01:00 EST on Sunday 11-01 (06:00Z). Australia/Sydney 2026: 03:00 AEDT
// -> 02:00 AEST on Sunday 04-05 (04-04 16:00Z); 02:00 AEST -> 03:00 AEDT on Sunday 10-04
// (10-03 16:00Z).

const EVERY_DAY: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const ms = (iso: string) => Date.parse(iso);
const iso = (instant: number) => new Date(instant).toISOString();
const day = (date: string) => {
  const [year, month, dayOfMonth] = date.split('-').map(Number) as [number, number, number];
  return daysFromCivil({ year, month, day: dayOfMonth });
};

interface RuleSpec {
  days?: Weekday[];
  start: string;
  end: string;
  channels?: Channel[];
}
const quiet = (timeZone: string, ...rules: RuleSpec[]): QuietHoursLike => ({
  timeZone,
  quietHours: rules.map((rule) => ({ days: EVERY_DAY, ...rule })),
});

/** The windows of email that start on a local date, as ISO pairs. */
const windowsOn = (schedule: QuietHoursLike, date: string) =>
  quietWindows(schedule, 'email', day(date), day(date)).map((w) => [iso(w.start), iso(w.end)]);

/** The decision for email at `at`, for a schedule with quiet hours only. */
const quietDecision = (schedule: QuietHoursLike, at: string) =>
  decideChannel({ channel: 'email', deliver: true, priority: 'normal', at: new Date(at), schedule });

describe('quiet windows on transition days', () => {
  test.each([
    // Crossing midnight on the transition night: 22:00 to 07:00 is 8 hours in spring, 10 in autumn.
    [
      'Europe/Berlin',
      { start: '22:00', end: '07:00' },
      '2026-03-28',
      [['2026-03-28T21:00:00.000Z', '2026-03-29T05:00:00.000Z']],
    ],
    [
      'Europe/Berlin',
      { start: '22:00', end: '07:00' },
      '2026-10-24',
      [['2026-10-24T20:00:00.000Z', '2026-10-25T06:00:00.000Z']],
    ],
    [
      'America/New_York',
      { start: '22:00', end: '07:00' },
      '2026-03-07',
      [['2026-03-08T03:00:00.000Z', '2026-03-08T11:00:00.000Z']],
    ],
    [
      'America/New_York',
      { start: '22:00', end: '07:00' },
      '2026-10-31',
      [['2026-11-01T02:00:00.000Z', '2026-11-01T12:00:00.000Z']],
    ],
    [
      'Australia/Sydney',
      { start: '22:00', end: '07:00' },
      '2026-04-04',
      [['2026-04-04T11:00:00.000Z', '2026-04-04T21:00:00.000Z']],
    ],
    [
      'Australia/Sydney',
      { start: '22:00', end: '07:00' },
      '2026-10-03',
      [['2026-10-03T12:00:00.000Z', '2026-10-03T20:00:00.000Z']],
    ],
    // Straddling a forward change: 01:00 to 04:00 lasts 2 hours.
    [
      'Europe/Berlin',
      { start: '01:00', end: '04:00' },
      '2026-03-29',
      [['2026-03-29T00:00:00.000Z', '2026-03-29T02:00:00.000Z']],
    ],
    // Starting in the gap: the start moves forward by the gap (02:30 is 03:30 CEST).
    [
      'Europe/Berlin',
      { start: '02:30', end: '05:00' },
      '2026-03-29',
      [['2026-03-29T01:30:00.000Z', '2026-03-29T03:00:00.000Z']],
    ],
    [
      'America/New_York',
      { start: '02:15', end: '03:30' },
      '2026-03-08',
      [['2026-03-08T07:15:00.000Z', '2026-03-08T07:30:00.000Z']],
    ],
    // Ending in the gap: the end moves forward too (01:30 EST to 03:30 EDT, one hour).
    [
      'America/New_York',
      { start: '01:30', end: '02:30' },
      '2026-03-08',
      [['2026-03-08T06:30:00.000Z', '2026-03-08T07:30:00.000Z']],
    ],
    // Wholly inside the gap, or starting in it and ending after it by less than the gap: empty.
    ['Europe/Berlin', { start: '02:00', end: '03:00' }, '2026-03-29', []],
    ['Europe/Berlin', { start: '02:30', end: '03:00' }, '2026-03-29', []],
    ['America/New_York', { start: '02:30', end: '03:30' }, '2026-03-08', []],
    ['Australia/Sydney', { start: '02:30', end: '03:30' }, '2026-10-04', []],
    ['Australia/Lord_Howe', { start: '02:00', end: '02:30' }, '2026-10-04', []],
    // Straddling a backward change: 01:00 to 03:00 lasts 3 hours (both 02:00-03:00 hours).
    [
      'Europe/Berlin',
      { start: '01:00', end: '03:00' },
      '2026-10-25',
      [['2026-10-24T23:00:00.000Z', '2026-10-25T02:00:00.000Z']],
    ],
    [
      'America/New_York',
      { start: '01:00', end: '02:00' },
      '2026-11-01',
      [['2026-11-01T05:00:00.000Z', '2026-11-01T07:00:00.000Z']],
    ],
    // Inside the repeated hour: its first occurrence only.
    [
      'Europe/Berlin',
      { start: '02:00', end: '02:30' },
      '2026-10-25',
      [['2026-10-25T00:00:00.000Z', '2026-10-25T00:30:00.000Z']],
    ],
    [
      'America/New_York',
      { start: '01:00', end: '01:30' },
      '2026-11-01',
      [['2026-11-01T05:00:00.000Z', '2026-11-01T05:30:00.000Z']],
    ],
    [
      'Australia/Sydney',
      { start: '02:00', end: '02:30' },
      '2026-04-05',
      [['2026-04-04T15:00:00.000Z', '2026-04-04T15:30:00.000Z']],
    ],
    // From the first 02:30 to 03:30 CET: two hours, the second 02:00-02:30 included.
    [
      'Europe/Berlin',
      { start: '02:30', end: '03:30' },
      '2026-10-25',
      [['2026-10-25T00:30:00.000Z', '2026-10-25T02:30:00.000Z']],
    ],
    // Santiago changes at midnight: a window ending at 00:30 on the night 00:00-01:00 is skipped ends at 01:30 -03.
    [
      'America/Santiago',
      { start: '23:00', end: '00:30' },
      '2026-09-05',
      [['2026-09-06T03:00:00.000Z', '2026-09-06T04:30:00.000Z']],
    ],
    [
      'America/Santiago',
      { start: '22:00', end: '07:00' },
      '2026-09-05',
      [['2026-09-06T02:00:00.000Z', '2026-09-06T10:00:00.000Z']],
    ],
  ])('%s %j on %s', (zone, rule, date, expected) => {
    expect(windowsOn(quiet(zone, rule), date)).toEqual(expected);
  });
});

describe('quiet hours on transition days: is it quiet, and until when', () => {
  test.each([
    // zone, rule, at, deliverAt (undefined: send)
    ['Europe/Berlin', { start: '22:00', end: '07:00' }, '2026-03-28T21:30:00Z', '2026-03-29T05:00:00.000Z'],
    ['Europe/Berlin', { start: '22:00', end: '07:00' }, '2026-03-29T04:59:59.999Z', '2026-03-29T05:00:00.000Z'],
    ['Europe/Berlin', { start: '22:00', end: '07:00' }, '2026-03-29T05:00:00Z', undefined],
    ['Europe/Berlin', { start: '22:00', end: '07:00' }, '2026-10-25T05:30:00Z', '2026-10-25T06:00:00.000Z'],
    // A window starts at its start, inclusive.
    ['Europe/Berlin', { start: '22:00', end: '07:00' }, '2026-10-24T20:00:00Z', '2026-10-25T06:00:00.000Z'],
    ['Europe/Berlin', { start: '22:00', end: '07:00' }, '2026-10-24T19:59:59.999Z', undefined],
    // 03:15 CEST, before a window starting at 02:30 (03:30 CEST) that day: free.
    ['Europe/Berlin', { start: '02:30', end: '05:00' }, '2026-03-29T01:15:00Z', undefined],
    ['Europe/Berlin', { start: '02:30', end: '05:00' }, '2026-03-29T01:30:00Z', '2026-03-29T03:00:00.000Z'],
    // An empty window quiets nothing.
    ['Europe/Berlin', { start: '02:30', end: '03:00' }, '2026-03-29T01:10:00Z', undefined],
    // The repeated hour: 02:10 CEST is quiet, 02:10 CET is not...
    ['Europe/Berlin', { start: '02:00', end: '02:30' }, '2026-10-25T00:10:00Z', '2026-10-25T00:30:00.000Z'],
    ['Europe/Berlin', { start: '02:00', end: '02:30' }, '2026-10-25T01:10:00Z', undefined],
    // ...but a window from the first 02:30 to 03:30 CET holds 02:10 CET.
    ['Europe/Berlin', { start: '02:30', end: '03:30' }, '2026-10-25T01:10:00Z', '2026-10-25T02:30:00.000Z'],
    ['Europe/Berlin', { start: '01:00', end: '03:00' }, '2026-10-25T01:59:00Z', '2026-10-25T02:00:00.000Z'],
    ['America/New_York', { start: '22:00', end: '07:00' }, '2026-03-08T10:59:00Z', '2026-03-08T11:00:00.000Z'],
    ['America/New_York', { start: '22:00', end: '07:00' }, '2026-11-01T11:30:00Z', '2026-11-01T12:00:00.000Z'],
    ['America/New_York', { start: '01:00', end: '02:00' }, '2026-11-01T06:30:00Z', '2026-11-01T07:00:00.000Z'],
    ['America/New_York', { start: '01:00', end: '01:30' }, '2026-11-01T06:10:00Z', undefined],
    ['America/New_York', { start: '01:00', end: '01:30' }, '2026-11-01T05:10:00Z', '2026-11-01T05:30:00.000Z'],
    ['Australia/Sydney', { start: '22:00', end: '07:00' }, '2026-04-04T20:00:00Z', '2026-04-04T21:00:00.000Z'],
    ['Australia/Sydney', { start: '22:00', end: '07:00' }, '2026-10-03T19:00:00Z', '2026-10-03T20:00:00.000Z'],
    ['Australia/Sydney', { start: '02:00', end: '02:30' }, '2026-04-04T16:10:00Z', undefined],
    ['Australia/Sydney', { start: '01:30', end: '02:30' }, '2026-10-03T16:00:00Z', '2026-10-03T16:30:00.000Z'],
    ['America/Santiago', { start: '23:00', end: '00:30' }, '2026-09-06T04:15:00Z', '2026-09-06T04:30:00.000Z'],
  ] as const)('%s %j at %s: deliver at %s', (zone, rule, at, deliverAt) => {
    const schedule = quiet(zone, rule);
    expect(isQuiet(schedule, 'email', ms(at))).toBe(deliverAt !== undefined);
    expect(quietDecision(schedule, at)).toEqual(
      deliverAt === undefined
        ? { action: 'send', reason: 'preference' }
        : { action: 'defer', deliverAt, reason: 'quiet_hours' },
    );
  });
});

describe('adjacent and overlapping windows chain, across midnight and transitions', () => {
  test.each([
    // Saturday 20:00 to Sunday 02:00 (in the gap: 03:00 CEST), then Sunday 02:00 to 09:00 CEST.
    [
      quiet(
        'Europe/Berlin',
        { days: ['sat'], start: '20:00', end: '02:00' },
        { days: ['sun'], start: '02:00', end: '09:00' },
      ),
      '2026-03-28T19:30:00Z',
      '2026-03-29T07:00:00.000Z',
    ],
    // The same on the autumn night: Sunday 02:00 is the first one (CEST), the chain ends at 09:00 CET.
    [
      quiet(
        'Europe/Berlin',
        { days: ['sat'], start: '20:00', end: '02:00' },
        { days: ['sun'], start: '02:00', end: '09:00' },
      ),
      '2026-10-24T19:30:00Z',
      '2026-10-25T08:00:00.000Z',
    ],
    // Overlapping: 21:00-00:00 and 23:00-03:00 (the gap's end) on Sydney's spring night.
    [
      quiet(
        'Australia/Sydney',
        { days: ['sat'], start: '21:00', end: '00:00' },
        { days: ['sat'], start: '23:00', end: '03:00' },
      ),
      '2026-10-03T11:00:00Z',
      '2026-10-03T16:00:00.000Z',
    ],
    // Six days of windows that touch, across New York's spring change: free on Friday 11:59-12:01 only.
    [
      quiet(
        'America/New_York',
        { days: ['sat', 'sun', 'mon', 'tue', 'wed', 'thu'], start: '12:00', end: '11:59' },
        { days: ['sat', 'sun', 'mon', 'tue', 'wed', 'thu'], start: '11:59', end: '12:00' },
        { days: ['fri'], start: '12:01', end: '12:00' },
      ),
      '2026-03-07T17:00:00Z',
      '2026-03-13T15:59:00.000Z',
    ],
  ])('%#: at %s, free at %s', (schedule, at, free) => {
    expect(iso(firstFreeInstant(schedule, 'email', ms(at)))).toBe(free);
    expect(quietDecision(schedule, at)).toEqual({ action: 'defer', deliverAt: free, reason: 'quiet_hours' });
  });

  test('a free hour that a forward change skips pushes the next free instant a week on (past 8 days)', () => {
    // Free only on Sunday 02:00-03:00: on 2026-03-29 Berlin skips that hour, so the next free
    // instant after Sunday 03-22 is Sunday 04-05, 02:00 CEST (a consequence of the contract's
    // rules: a schedule with a free minute in the week is valid; that minute may not exist).
    const schedule = quiet(
      'Europe/Berlin',
      { start: '03:00', end: '02:00' },
      { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat'], start: '01:00', end: '04:00' },
    );
    expect(iso(firstFreeInstant(schedule, 'email', ms('2026-03-22T01:59:00Z')))).toBe('2026-03-22T01:59:00.000Z');
    expect(iso(firstFreeInstant(schedule, 'email', ms('2026-03-22T02:00:00Z')))).toBe('2026-04-05T00:00:00.000Z');
    expect(iso(firstFreeInstant(schedule, 'email', ms('2026-03-28T12:00:00Z')))).toBe('2026-04-05T00:00:00.000Z');
    // The autumn Sunday repeats the hour: free from the first 02:00 (CEST) to 03:00 CET.
    expect(iso(firstFreeInstant(schedule, 'email', ms('2026-10-20T12:00:00Z')))).toBe('2026-10-25T00:00:00.000Z');
  });
});

describe('digest slots on transition days', () => {
  test.each([
    // The contract's examples: 02:30 on 03-29 is 03:30 CEST; on 10-25 the first 02:30 (CEST).
    ['Europe/Berlin', { cadence: 'daily', at: '02:30' }, '2026-03-29T00:00:00Z', '2026-03-29T01:30:00.000Z'],
    ['Europe/Berlin', { cadence: 'daily', at: '02:30' }, '2026-03-29T01:30:00Z', '2026-03-29T01:30:00.000Z'],
    ['Europe/Berlin', { cadence: 'daily', at: '02:30' }, '2026-03-29T01:31:00Z', '2026-03-30T00:30:00.000Z'],
    ['Europe/Berlin', { cadence: 'daily', at: '02:30' }, '2026-10-25T00:00:00Z', '2026-10-25T00:30:00.000Z'],
    ['Europe/Berlin', { cadence: 'daily', at: '02:30' }, '2026-10-25T00:31:00Z', '2026-10-26T01:30:00.000Z'],
    [
      'Europe/Berlin',
      { cadence: 'weekly', day: 'sun', at: '02:30' },
      '2026-03-23T00:00:00Z',
      '2026-03-29T01:30:00.000Z',
    ],
    [
      'Europe/Berlin',
      { cadence: 'weekly', day: 'sun', at: '02:30' },
      '2026-03-29T01:30:00.001Z',
      '2026-04-05T00:30:00.000Z',
    ],
    [
      'America/New_York',
      { cadence: 'weekly', day: 'sun', at: '02:15' },
      '2026-03-02T00:00:00Z',
      '2026-03-08T07:15:00.000Z',
    ],
    [
      'America/New_York',
      { cadence: 'weekly', day: 'sun', at: '01:30' },
      '2026-10-30T00:00:00Z',
      '2026-11-01T05:30:00.000Z',
    ],
    ['America/New_York', { cadence: 'daily', at: '01:30' }, '2026-11-01T05:31:00Z', '2026-11-02T06:30:00.000Z'],
    ['Australia/Sydney', { cadence: 'daily', at: '02:30' }, '2026-10-03T14:00:00Z', '2026-10-03T16:30:00.000Z'],
    ['Australia/Sydney', { cadence: 'daily', at: '02:30' }, '2026-04-04T14:00:00Z', '2026-04-04T15:30:00.000Z'],
    [
      'Australia/Sydney',
      { cadence: 'weekly', day: 'sun', at: '02:30' },
      '2026-09-28T00:00:00Z',
      '2026-10-03T16:30:00.000Z',
    ],
    // Santiago skips 00:00-01:00 on 09-06: a 00:30 slot is 01:30 -03, on the same Sunday.
    [
      'America/Santiago',
      { cadence: 'weekly', day: 'sun', at: '00:30' },
      '2026-09-01T00:00:00Z',
      '2026-09-06T04:30:00.000Z',
    ],
  ] as const)('%s %j from %s: %s', (zone, digest, from, slot) => {
    expect(iso(nextDigestSlot(zone, digest, ms(from)))).toBe(slot);
  });

  test('quiet hours do not move a digest slot', () => {
    const schedule = {
      ...quiet('Europe/Berlin', { start: '01:00', end: '04:00', channels: ['email'] as Channel[] }),
      digest: { channels: ['email'] as Channel[], cadence: 'daily' as const, at: '02:30' },
    };
    expect(
      decideChannel({
        channel: 'email',
        deliver: true,
        priority: 'normal',
        at: new Date('2026-03-29T00:15:00Z'),
        schedule,
      }),
    ).toEqual({
      action: 'digest',
      deliverAt: '2026-03-29T01:30:00.000Z',
      reason: 'digest',
    });
  });
});
