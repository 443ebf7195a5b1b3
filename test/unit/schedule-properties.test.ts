import { beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import * as z from 'zod/mini';
import { CHANNELS, type Channel } from '#shared/api/channels.js';
import { type ChannelDecision, decideChannel, type Priority } from '#shared/schedules/decide.js';
import { type Schedule, schedule as scheduleSchema, WEEKDAYS, type Weekday } from '#shared/schedules/schema.js';
import { transitionsBetween } from '#shared/schedules/zone.js';
import { FUZZ_RUNS, FUZZ_SEED } from '../support/fuzz/runs.js';

// Property tests of the decisions (contract 12.2) in zones with half-hour and 45-minute offsets,
// 30-minute changes, changes at midnight and southern-hemisphere daylight saving, over two years
// of `at`, with random valid schedules. Each decision is held to an oracle written apart from
// the code under test: offsets read from Intl's `longOffset` zone names, a wall time converted
// the way Temporal's reference code does (the two offsets a day either side, checked; neither
// valid means a gap), and the first free instant taken as the earliest of `from` and the ends of
// the windows that is in no window. Then the contract's promises are checked directly.
// FUZZ_SEED (fixed by default) makes every run generate the same cases.

const ZONES = [
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Adelaide',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'America/St_Johns',
  'Europe/Berlin',
  'America/New_York',
  'Australia/Sydney',
  'America/Santiago',
  'Pacific/Auckland',
  'UTC',
];
/** Cases per zone, each deciding the three channels: FUZZ_RUNS in all per 4 zones (`npm run soak` raises it). */
const RUNS_PER_ZONE = Math.ceil(FUZZ_RUNS / 4);

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const FROM = Date.parse('2026-01-01T00:00:00Z');
const TO = Date.parse('2028-01-01T00:00:00Z');
const ALL_DAYS: Weekday[] = [...WEEKDAYS];
const SNOOZED: Channel[] = ['email', 'slack'];
const DEFAULT_RULE_CHANNELS: Channel[] = ['email', 'slack'];

// --- The oracle -------------------------------------------------------------------------------

const offsetNames = new Map<string, Intl.DateTimeFormat>();
let offsetMemo = new Map<string, number>();

/** The offset at `t`, read from the zone's `GMT+05:45` name (another Intl path than the code's). */
const offset = (zone: string, t: number): number => {
  const key = `${zone}|${t}`;
  const known = offsetMemo.get(key);
  if (known !== undefined) return known;
  let format = offsetNames.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
    offsetNames.set(zone, format);
  }
  const name = format.formatToParts(t).find((part) => part.type === 'timeZoneName')?.value ?? '';
  const match = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name);
  if (!match) throw new Error(`unreadable offset ${name}`);
  const value = match[1] ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) * MINUTE : 0;
  offsetMemo.set(key, value);
  return value;
};

const localDay = (zone: string, t: number) => Math.floor((t + offset(zone, t)) / DAY);
const weekdayOf = (day: number) => (new Date(day * DAY).getUTCDay() + 6) % 7;
const minutesOf = (clock: string) => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/** Wall time `minute` of local day `day` (days since 1970-01-01): [instant, whether it exists]. */
const wallInstant = (zone: string, day: number, minute: number): [number, boolean] => {
  const wall = day * DAY + minute * MINUTE;
  const before = offset(zone, wall - DAY);
  const after = offset(zone, wall + DAY);
  const valid = [wall - before, wall - after].filter((t) => offset(zone, t) === wall - t);
  if (valid.length > 0) return [Math.min(...valid), true];
  return [wall - before, false];
};

interface Window {
  start: number;
  end: number;
}

const ruleChannels = (rule: { channels?: Channel[] | undefined }) => rule.channels ?? DEFAULT_RULE_CHANNELS;

const windowsOf = (schedule: Schedule, channel: Channel, fromDay: number, toDay: number): Window[] => {
  const windows: Window[] = [];
  for (const rule of schedule.quietHours ?? []) {
    if (!ruleChannels(rule).includes(channel)) continue;
    const start = minutesOf(rule.start);
    const end = minutesOf(rule.end);
    for (let day = fromDay; day <= toDay; day += 1) {
      if (!rule.days.includes(ALL_DAYS[weekdayOf(day)] as Weekday)) continue;
      const [from] = wallInstant(schedule.timeZone, day, start);
      const [to] = wallInstant(schedule.timeZone, end > start ? day : day + 1, end);
      if (to > from) windows.push({ start: from, end: to });
    }
  }
  return windows;
};

const inside = (windows: Window[], t: number) => windows.some((w) => w.start <= t && t < w.end);

const quietAt = (schedule: Schedule, channel: Channel, t: number) => {
  const day = localDay(schedule.timeZone, t);
  return inside(windowsOf(schedule, channel, day - 3, day + 1), t);
};

/** The earliest of `from` and the window ends after it that no window holds. */
const firstFree = (schedule: Schedule, channel: Channel, from: number): number => {
  const day = localDay(schedule.timeZone, from);
  const windows = windowsOf(schedule, channel, day - 3, day + 17);
  const candidates = [from, ...windows.map((w) => w.end).filter((end) => end >= from)].sort((a, b) => a - b);
  const free = candidates.find((t) => !inside(windows, t));
  if (free === undefined || free > from + 16 * DAY) throw new Error('oracle: no free instant within 16 days');
  return free;
};

const digestSlot = (schedule: Schedule, from: number): number => {
  const digest = schedule.digest as NonNullable<Schedule['digest']>;
  const day = localDay(schedule.timeZone, from);
  for (let d = day - 2; d <= day + 9; d += 1) {
    if (digest.cadence === 'weekly' && ALL_DAYS[weekdayOf(d)] !== digest.day) continue;
    const [slot] = wallInstant(schedule.timeZone, d, minutesOf(digest.at));
    if (slot >= from) return slot;
  }
  throw new Error('oracle: no digest slot');
};

const iso = (t: number) => new Date(t).toISOString();

const oracleDecision = (
  channel: Channel,
  deliver: boolean,
  priority: Priority,
  at: number,
  schedule: Schedule,
): ChannelDecision => {
  if (!deliver) return { action: 'suppress', reason: 'preference' };
  if (priority === 'urgent') return { action: 'send', reason: 'preference' };
  const until = schedule.snoozeUntil ? Date.parse(schedule.snoozeUntil) : undefined;
  const snoozed = until !== undefined && SNOOZED.includes(channel) && at < until;
  if (schedule.digest?.channels.includes(channel)) {
    return {
      action: 'digest',
      deliverAt: iso(digestSlot(schedule, snoozed ? (until as number) : at)),
      reason: 'digest',
    };
  }
  if (snoozed)
    return { action: 'defer', deliverAt: iso(firstFree(schedule, channel, until as number)), reason: 'snoozed' };
  if (quietAt(schedule, channel, at)) {
    return { action: 'defer', deliverAt: iso(firstFree(schedule, channel, at)), reason: 'quiet_hours' };
  }
  return { action: 'send', reason: 'preference' };
};

/** Whether the zone's offset changes between `from` and `to` (sampled hourly: changes are months apart). */
const changesBetween = (zone: string, from: number, to: number) => {
  for (let t = from; t < to; t += HOUR) if (offset(zone, t) !== offset(zone, Math.min(t + HOUR, to))) return true;
  return false;
};

// --- Generators -------------------------------------------------------------------------------

const clockText = (minute: number) =>
  `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

// The wall times where the sample's zones change (00:00 Santiago, 02:00-03:00 most, 02:45-03:45
// Chatham, 02:00-02:30 Lord Howe), midnight and the ends of the day, or any minute.
const INTERESTING = [
  '00:00',
  '00:30',
  '01:00',
  '01:30',
  '01:59',
  '02:00',
  '02:15',
  '02:30',
  '02:45',
  '03:00',
  '03:30',
  '03:45',
  '04:00',
  '07:00',
  '12:00',
  '22:00',
  '23:00',
  '23:30',
  '23:59',
];
const clock = fc.oneof(fc.constantFrom(...INTERESTING), fc.integer({ min: 0, max: 1439 }).map(clockText));
const days = fc.oneof(fc.constant(ALL_DAYS), fc.subarray(ALL_DAYS, { minLength: 1 }));
const ruleChannelList = fc.option(fc.subarray([...CHANNELS], { minLength: 1 }), { nil: undefined });

interface RuleInput {
  days: Weekday[];
  start: string;
  end: string;
  channels?: Channel[] | undefined;
}

const randomRules: fc.Arbitrary<RuleInput[]> = fc.array(
  fc.record({ days, start: clock, end: clock, channels: ruleChannelList }).filter((rule) => rule.start !== rule.end),
  { maxLength: 7 },
);

/**
 * Rules that leave one free slot a week (`length` minutes on `day` from `start`): every day is
 * quiet from the slot's end to the next day's slot start, and the slot is quiet too on the other
 * days. Chains of windows up to a week long; a slot in a changing hour may vanish that week.
 */
const denseRules: fc.Arbitrary<RuleInput[]> = fc
  .record({
    // Most of the sample's zones change on a Sunday.
    day: fc.oneof(fc.constant<Weekday>('sun'), fc.constantFrom(...ALL_DAYS)),
    length: fc.oneof(fc.constantFrom(1, 30, 60), fc.integer({ min: 1, max: 180 })),
    start: fc.oneof(fc.constantFrom(...INTERESTING.map(minutesOf)), fc.integer({ min: 0, max: 1438 })),
    channels: ruleChannelList,
  })
  .map(({ day, length, start, channels }) => {
    const end = Math.min(start + length, 1439);
    return [
      { days: ALL_DAYS, start: clockText(end), end: clockText(start), channels },
      { days: ALL_DAYS.filter((d) => d !== day), start: clockText(start), end: clockText(end), channels },
    ];
  });

const digestArb = fc.oneof(
  fc.record({
    channels: fc.subarray([...CHANNELS], { minLength: 1 }),
    cadence: fc.constant('daily' as const),
    at: clock,
  }),
  fc.record({
    channels: fc.subarray([...CHANNELS], { minLength: 1 }),
    cadence: fc.constant('weekly' as const),
    at: clock,
    day: fc.constantFrom(...ALL_DAYS),
  }),
);

/** An ISO-8601 instant written with a given offset (`+05:45`, `-03:30`, or `Z`). */
const writtenWithOffset = (t: number, offsetMinutes: number): string => {
  if (offsetMinutes === 0) return iso(t);
  const local = new Date(t + offsetMinutes * MINUTE).toISOString().slice(0, 23);
  const sign = offsetMinutes < 0 ? '-' : '+';
  return `${local}${sign}${clockText(Math.abs(offsetMinutes))}`;
};

interface Case {
  schedule: Schedule;
  at: number;
  priority: Priority;
  deliver: Record<Channel, boolean>;
}

const caseOf = (zone: string, transitions: number[]): fc.Arbitrary<Case> =>
  fc
    .record({
      quietHours: fc.option(fc.oneof(randomRules, denseRules), { nil: undefined }),
      digest: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: digestArb }),
      snooze: fc.oneof(
        { weight: 2, arbitrary: fc.constant(undefined) },
        fc.record({
          after: fc.oneof(fc.integer({ min: -2 * DAY, max: 31 * DAY }), fc.integer({ min: -HOUR, max: 3 * HOUR })),
          writtenIn: fc.constantFrom(0, 0, 120, -180, 345, -210),
        }),
      ),
      priority: fc.constantFrom<Priority>('normal', 'normal', 'normal', 'normal', 'urgent'),
      deliver: fc.record({
        inbox: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, fc.constant(false)),
        email: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, fc.constant(false)),
        slack: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, fc.constant(false)),
      }),
      anywhere: fc.integer({ min: FROM, max: TO - 1 }),
      nearChange: fc.record({
        index: fc.nat(),
        minutes: fc.integer({ min: -36 * 60, max: 36 * 60 }),
        ms: fc.constantFrom(0, 0, 0, -1, 1, 30_000),
      }),
      kind: fc.constantFrom('anywhere', 'nearChange', 'nearChange', 'boundary'),
      boundary: fc.record({
        rule: fc.nat(),
        end: fc.boolean(),
        day: fc.integer({ min: -3, max: 3 }),
        ms: fc.constantFrom(0, -1, 1),
      }),
    })
    .filter(({ quietHours }) => {
      const parsed = z.safeParse(scheduleSchema(), { timeZone: zone, quietHours });
      return parsed.success;
    })
    .map((input): Case => {
      const schedule = z.parse(scheduleSchema(), {
        timeZone: zone,
        quietHours: input.quietHours,
        digest: input.digest,
      });
      let at = input.anywhere;
      if (input.kind !== 'anywhere' && transitions.length > 0) {
        const change = transitions[input.nearChange.index % transitions.length] as number;
        at = change + input.nearChange.minutes * MINUTE + input.nearChange.ms;
      }
      const rules = schedule.quietHours ?? [];
      if (input.kind === 'boundary' && rules.length > 0) {
        // Exactly at a window's start or end (or a millisecond either side), near `at`.
        const rule = rules[input.boundary.rule % rules.length] as (typeof rules)[number];
        const day = localDay(zone, at) + input.boundary.day;
        const [t] = wallInstant(zone, day, minutesOf(input.boundary.end ? rule.end : rule.start));
        at = t + input.boundary.ms;
      }
      if (input.snooze) {
        // At most 31 days after the request, whose time is `at` here.
        schedule.snoozeUntil = writtenWithOffset(at + input.snooze.after, input.snooze.writtenIn);
      }
      return { schedule, at, priority: input.priority, deliver: input.deliver };
    });

// --- The properties ---------------------------------------------------------------------------

const stats = { cases: 0, decisions: 0, beyondEightDays: 0, byReason: {} as Record<string, number> };

describe.each(ZONES)('%s', (zone) => {
  let transitions: number[] = [];
  beforeAll(() => {
    transitions = transitionsBetween(zone, FROM, TO).map((t) => t.at);
  });

  test(`${RUNS_PER_ZONE} random schedules and instants: every decision as the contract says`, () => {
    fc.assert(
      fc.property(caseOf(zone, transitions), ({ schedule, at, priority, deliver }) => {
        offsetMemo = new Map();
        stats.cases += 1;
        // The generated schedule is one the schema accepts, snooze included.
        expect(z.safeParse(scheduleSchema(), schedule).success).toBe(true);
        const until = schedule.snoozeUntil ? Date.parse(schedule.snoozeUntil) : undefined;
        for (const channel of CHANNELS) {
          const decision = decideChannel({ channel, deliver: deliver[channel], priority, at: new Date(at), schedule });
          stats.decisions += 1;
          stats.byReason[`${decision.action}/${decision.reason}`] =
            (stats.byReason[`${decision.action}/${decision.reason}`] ?? 0) + 1;
          // The oracle's decision, to the millisecond.
          expect(decision).toEqual(oracleDecision(channel, deliver[channel], priority, at, schedule));

          const snoozed = until !== undefined && SNOOZED.includes(channel) && at < until;
          const inDigest = schedule.digest?.channels.includes(channel) ?? false;
          // `send` only when allowed.
          if (decision.action === 'send') {
            expect(deliver[channel]).toBe(true);
            if (priority !== 'urgent') {
              expect(inDigest || snoozed || quietAt(schedule, channel, at)).toBe(false);
            }
          }
          if (decision.action === 'suppress') expect(deliver[channel]).toBe(false);
          if (decision.deliverAt === undefined) {
            expect(['send', 'suppress']).toContain(decision.action);
            continue;
          }
          const deliverAt = Date.parse(decision.deliverAt);
          expect(decision.deliverAt).toBe(iso(deliverAt));
          // Never before `at`.
          expect(deliverAt).toBeGreaterThanOrEqual(at);

          if (decision.action === 'defer') {
            // Never inside a quiet window of the channel.
            expect(quietAt(schedule, channel, deliverAt)).toBe(false);
            const from = decision.reason === 'snoozed' ? (until as number) : at;
            if (decision.reason === 'snoozed') expect(deliverAt).toBeGreaterThanOrEqual(until as number);
            else expect(deliverAt).toBeGreaterThan(at);
            // Every instant from `from` to deliverAt is quiet (sampled every 37 minutes and just
            // before deliverAt; the oracle above checks the window ends exactly).
            const windows = windowsOf(schedule, channel, localDay(zone, from) - 3, localDay(zone, deliverAt) + 1);
            for (let t = from; t < deliverAt; t += 37 * MINUTE) expect(inside(windows, t)).toBe(true);
            if (deliverAt > from) expect(inside(windows, deliverAt - 1)).toBe(true);
            // At most 8 days of quiet hours after `at` (or after the snooze's end); more only
            // when a daylight-saving change took away the week's free time, and never 15.
            if (deliverAt - from > 8 * DAY) {
              stats.beyondEightDays += 1;
              expect(changesBetween(zone, from, deliverAt)).toBe(true);
            }
            expect(deliverAt - from).toBeLessThanOrEqual(15 * DAY);
          }

          if (decision.action === 'digest') {
            const digest = schedule.digest as NonNullable<Schedule['digest']>;
            const base = snoozed ? (until as number) : at;
            expect(deliverAt).toBeGreaterThanOrEqual(base);
            // At the configured wall time on the configured day (the day the slot belongs to);
            // or, when that wall time does not exist that day, moved forward by the gap.
            const minute = minutesOf(digest.at);
            const slotDay = [localDay(zone, deliverAt), localDay(zone, deliverAt) - 1].find(
              (d) => wallInstant(zone, d, minute)[0] === deliverAt,
            );
            expect(slotDay).toBeDefined();
            const [, exists] = wallInstant(zone, slotDay as number, minute);
            const wallOfSlot = deliverAt + offset(zone, deliverAt);
            const intended = (slotDay as number) * DAY + minute * MINUTE;
            if (exists) expect(wallOfSlot).toBe(intended);
            else {
              const gap = offset(zone, deliverAt) - offset(zone, deliverAt - DAY);
              expect(gap).toBeGreaterThan(0);
              expect(wallOfSlot).toBe(intended + gap);
            }
            if (digest.cadence === 'weekly') {
              expect(ALL_DAYS[weekdayOf(slotDay as number)]).toBe(digest.day);
              expect(deliverAt - base).toBeLessThan(7 * DAY + 3 * HOUR);
            } else {
              expect(deliverAt - base).toBeLessThan(DAY + 3 * HOUR);
            }
          }
        }
      }),
      { seed: FUZZ_SEED, numRuns: RUNS_PER_ZONE },
    );
  }, 300_000);
});

test('the cases reached every kind of decision', () => {
  // Printed for the record: how many cases, decisions, and decisions past 8 days.
  console.log(JSON.stringify(stats));
  expect(stats.cases).toBe(ZONES.length * RUNS_PER_ZONE);
  for (const kind of [
    'send/preference',
    'suppress/preference',
    'digest/digest',
    'defer/snoozed',
    'defer/quiet_hours',
  ]) {
    expect(stats.byReason[kind] ?? 0).toBeGreaterThan(0);
  }
});
