import { describe, expect, test } from '@jest/globals';
import * as z from 'zod/mini';
import type { Channel } from '#shared/api/channels.js';
import { type ChannelDecision, decideChannel, decideChannels, type Priority } from '#shared/schedules/decide.js';
import { firstFreeInstant, isQuiet, nextDigestSlot } from '#shared/schedules/next-instant.js';
import { type ScheduleInput, schedule as scheduleSchema, WEEKDAYS } from '#shared/schedules/schema.js';
import { DAY, resetZoneMemory, zoneStats } from '#shared/schedules/zone.js';

// The ordered rules of contract 12.2, one channel at a time, in Europe/Berlin in winter (CET,
// UTC+1), and the cost of a decision in Intl calls.

const ALL = [...WEEKDAYS];
const parse = (value: ScheduleInput) => z.parse(scheduleSchema(), value);
const decide = (
  channel: Channel,
  schedule: ScheduleInput | null,
  at: string,
  { deliver = true, priority = 'normal' }: { deliver?: boolean; priority?: Priority } = {},
): ChannelDecision =>
  decideChannel({ channel, deliver, priority, at: new Date(at), schedule: schedule && parse(schedule) });

const send: ChannelDecision = { action: 'send', reason: 'preference' };
const nights = { days: ALL, start: '22:00', end: '07:00' } as const;

describe('the first rule that applies decides', () => {
  const full: ScheduleInput = {
    timeZone: 'Europe/Berlin',
    quietHours: [{ ...nights, days: [...ALL] }],
    snoozeUntil: '2026-02-05T10:00:00Z',
    digest: { channels: ['slack'], cadence: 'daily', at: '08:00' },
  };

  test('1. the preference says no: suppress, whatever else applies', () => {
    for (const channel of ['inbox', 'email', 'slack'] as const) {
      for (const priority of ['normal', 'urgent'] as const) {
        expect(decide(channel, full, '2026-02-02T23:00:00Z', { deliver: false, priority })).toEqual({
          action: 'suppress',
          reason: 'preference',
        });
      }
    }
  });

  test('2. urgent: send, ignoring digest, snooze and quiet hours', () => {
    for (const channel of ['inbox', 'email', 'slack'] as const) {
      expect(decide(channel, full, '2026-02-02T23:00:00Z', { priority: 'urgent' })).toEqual(send);
    }
  });

  test('3. digest: the next slot, after the snooze while it covers the channel; quiet hours do not move it', () => {
    // Slack is in the digest and snoozed until 02-05 10:00Z: the first 08:00 CET after that is 02-06 07:00Z.
    expect(decide('slack', full, '2026-02-02T23:00:00Z')).toEqual({
      action: 'digest',
      deliverAt: '2026-02-06T07:00:00.000Z',
      reason: 'digest',
    });
    // After the snooze: the next slot after `at`.
    expect(decide('slack', full, '2026-02-05T10:00:00Z')).toEqual({
      action: 'digest',
      deliverAt: '2026-02-06T07:00:00.000Z',
      reason: 'digest',
    });
    expect(decide('slack', full, '2026-02-07T06:00:00Z')).toEqual({
      action: 'digest',
      deliverAt: '2026-02-07T07:00:00.000Z',
      reason: 'digest',
    });
    // A slot exactly at `at` is at or after it.
    expect(decide('slack', full, '2026-02-07T07:00:00Z').deliverAt).toBe('2026-02-07T07:00:00.000Z');
    // The inbox is never snoozed: its digest slot follows `at`.
    const inboxDigest: ScheduleInput = {
      ...full,
      digest: { channels: ['inbox'], cadence: 'weekly', day: 'mon', at: '23:30' },
    };
    expect(decide('inbox', inboxDigest, '2026-02-02T23:00:00Z')).toEqual({
      action: 'digest',
      deliverAt: '2026-02-09T22:30:00.000Z',
      reason: 'digest',
    });
    // A slot inside quiet hours stays there.
    expect(
      decide(
        'slack',
        { ...full, snoozeUntil: null, digest: { channels: ['slack'], cadence: 'daily', at: '23:00' } },
        '2026-02-02T12:00:00Z',
      ),
    ).toEqual({
      action: 'digest',
      deliverAt: '2026-02-02T22:00:00.000Z',
      reason: 'digest',
    });
  });

  test('4. snoozed: deferred to the first instant at or after snoozeUntil outside quiet hours', () => {
    // 02-05 10:00Z is 11:00 CET: free.
    expect(decide('email', full, '2026-02-02T23:00:00Z')).toEqual({
      action: 'defer',
      deliverAt: '2026-02-05T10:00:00.000Z',
      reason: 'snoozed',
    });
    // A snooze ending at 23:00 CET, in the night: 07:00 CET the next morning.
    expect(decide('email', { ...full, snoozeUntil: '2026-02-05T22:00:00Z' }, '2026-02-02T12:00:00Z')).toEqual({
      action: 'defer',
      deliverAt: '2026-02-06T06:00:00.000Z',
      reason: 'snoozed',
    });
    // At the end of the snooze it no longer applies (then quiet hours, or send).
    expect(decide('email', full, '2026-02-05T10:00:00Z')).toEqual(send);
    // The inbox keeps collecting.
    expect(decide('inbox', full, '2026-02-02T12:00:00Z')).toEqual(send);
  });

  test('5. quiet hours: deferred to the end of the window; 6. otherwise send', () => {
    const nightsOnly: ScheduleInput = { timeZone: 'Europe/Berlin', quietHours: [{ ...nights, days: [...ALL] }] };
    expect(decide('email', nightsOnly, '2026-02-02T21:00:00Z')).toEqual({
      action: 'defer',
      deliverAt: '2026-02-03T06:00:00.000Z',
      reason: 'quiet_hours',
    });
    expect(decide('email', nightsOnly, '2026-02-02T20:59:59.999Z')).toEqual(send);
    expect(decide('email', nightsOnly, '2026-02-03T06:00:00Z')).toEqual(send);
    // The rule names no channel: email and Slack only.
    expect(decide('inbox', nightsOnly, '2026-02-02T23:00:00Z')).toEqual(send);
    expect(decide('slack', nightsOnly, '2026-02-02T23:00:00Z').reason).toBe('quiet_hours');
    // A rule naming the inbox covers it, and only what it names.
    const inboxNights: ScheduleInput = {
      timeZone: 'Europe/Berlin',
      quietHours: [{ ...nights, days: [...ALL], channels: ['inbox'] }],
    };
    expect(decide('inbox', inboxNights, '2026-02-02T23:00:00Z').reason).toBe('quiet_hours');
    expect(decide('email', inboxNights, '2026-02-02T23:00:00Z')).toEqual(send);
  });

  test('no schedule: send', () => {
    expect(decide('email', null, '2026-02-02T23:00:00Z')).toEqual(send);
  });

  test('the three channels of a user at once', () => {
    expect(
      decideChannels({
        deliver: { inbox: true, email: true, slack: false },
        priority: 'normal',
        at: new Date('2026-02-02T23:00:00Z'),
        schedule: parse(full),
      }),
    ).toEqual({
      inbox: send,
      email: { action: 'defer', deliverAt: '2026-02-05T10:00:00.000Z', reason: 'snoozed' },
      slack: { action: 'suppress', reason: 'preference' },
    });
  });

  test('a stored schedule whose rules carry no channels reads them as email and Slack', () => {
    const stored = { timeZone: 'Europe/Berlin', quietHours: [{ days: [...ALL], start: '22:00', end: '07:00' }] };
    expect(
      decideChannel({
        channel: 'email',
        deliver: true,
        priority: 'normal',
        at: new Date('2026-02-02T23:00:00Z'),
        schedule: stored,
      }),
    ).toEqual({ action: 'defer', deliverAt: '2026-02-03T06:00:00.000Z', reason: 'quiet_hours' });
  });

  test('the same inputs give the same answer', () => {
    const inputs = {
      channel: 'email',
      deliver: true,
      priority: 'normal',
      at: new Date('2026-02-02T23:00:00Z'),
      schedule: parse(full),
    } as const;
    const first = decideChannel(inputs);
    resetZoneMemory();
    expect(decideChannel(inputs)).toEqual(first);
    expect(decideChannel(inputs)).toEqual(first);
  });

  test('an invalid `at` is refused', () => {
    expect(() =>
      decideChannel({ channel: 'email', deliver: true, priority: 'normal', at: new Date('x'), schedule: null }),
    ).toThrow(RangeError);
  });
});

describe('cost: a bounded number of Intl calls per computation, whatever the windows or the snooze', () => {
  // A cold computation reads each local day it crosses once (one Intl call), plus 17 calls per
  // transition it meets; the days it crosses are bounded by the schedule's week, not by the
  // length of a window or of a snooze (the search starts at snoozeUntil). Remembered days cost
  // nothing, so the bound is for a cold start.
  const BOUND = 64;
  const cold = <T>(compute: () => T): number => {
    resetZoneMemory();
    compute();
    return zoneStats().offsetLookups;
  };
  const zone = 'Europe/Berlin';
  const request = Date.parse('2026-03-20T12:00:00Z');

  test.each([
    ['a 1-minute window', [{ days: ALL, start: '12:00', end: '12:01' }]],
    ['a 23-hour window every day', [{ days: ALL, start: '13:00', end: '12:00' }]],
    [
      'windows chained over six days and a transition (free a minute a week)',
      [
        { days: ['sat', 'sun', 'mon', 'tue', 'wed', 'thu'], start: '12:00', end: '11:59' },
        { days: ['sat', 'sun', 'mon', 'tue', 'wed', 'thu'], start: '11:59', end: '12:00' },
        { days: ['fri'], start: '12:01', end: '12:00' },
      ],
    ],
    [
      'a free hour a spring change removes (a two-week chain)',
      [
        { days: ALL, start: '03:00', end: '02:00' },
        { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat'], start: '01:00', end: '04:00' },
      ],
    ],
  ] as const)('%s: first free instant, snoozed or not, within %#', (_name, quietHours) => {
    const schedule = { timeZone: zone, quietHours: quietHours.map((rule) => ({ ...rule, days: [...rule.days] })) };
    const counts: number[] = [];
    for (const snoozeDays of [0, 1 / 24, 1, 7, 31]) {
      const from = request + snoozeDays * DAY;
      counts.push(cold(() => firstFreeInstant(schedule, 'email', from)));
      counts.push(cold(() => isQuiet(schedule, 'email', from)));
      const snoozed = { ...schedule, snoozeUntil: new Date(from).toISOString() };
      counts.push(
        cold(() =>
          decideChannel({
            channel: 'email',
            deliver: true,
            priority: 'normal',
            at: new Date(request),
            schedule: snoozed,
          }),
        ),
      );
    }
    expect(Math.max(...counts)).toBeLessThanOrEqual(BOUND);
  });

  test('a digest slot, daily or weekly, however far the snooze', () => {
    for (const snoozeDays of [0, 1, 31]) {
      const from = Date.parse('2026-03-23T12:00:00Z') + snoozeDays * DAY;
      expect(
        cold(() => nextDigestSlot(zone, { cadence: 'weekly', day: 'sun', at: '02:30' }, from)),
      ).toBeLessThanOrEqual(BOUND);
      expect(cold(() => nextDigestSlot(zone, { cadence: 'daily', at: '02:30' }, from))).toBeLessThanOrEqual(BOUND);
    }
  });

  test('one formatter per zone for any number of decisions', () => {
    decide(
      'email',
      { timeZone: 'Asia/Kathmandu', quietHours: [{ ...nights, days: [...ALL] }] },
      '2026-02-02T23:00:00Z',
    );
    const before = zoneStats().formattersCreated;
    for (let i = 0; i < 200; i += 1) {
      decide(
        'email',
        { timeZone: 'Asia/Kathmandu', quietHours: [{ ...nights, days: [...ALL] }] },
        new Date(Date.parse('2026-01-01T00:00:00Z') + i * 3 * 3_600_000).toISOString(),
      );
    }
    expect(zoneStats().formattersCreated).toBe(before);
  });
});
