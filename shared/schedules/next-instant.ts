import type { Channel } from '#shared/api/channels.js';
import { minuteOfDay, rulesOfChannel, WEEKDAYS, type Weekday } from './schema.js';
import { DAY, instantOfLocal, localDayAt, weekdayOfDays } from './zone.js';

// When a channel may deliver (contract 12.2): the quiet windows of a schedule as instants, the
// first instant outside them, the next digest slot. Closed form over the zone's offsets (zone.ts):
// each window is two wall-time conversions, and a search touches the days it crosses, never a
// minute at a time.
//
// A rule's window on a day starts at `start` that day and ends at `end` the same day, or the
// next day when `start > end` (it belongs to the day it starts). Both ends are wall times
// converted with `compatible` disambiguation, so a window follows the zone's daylight-saving
// changes: on a forward change an end or start in the gap moves forward by the gap; on a
// backward change a wall time means its first occurrence (a window ending at 02:30 on a night
// that repeats 02:00-03:00 ends at the first 02:30; one ending at 03:00 covers both hours). A
// window whose start moves past its end (start in the gap, end after it by less than the gap) is
// empty. A window includes its start and excludes its end.

/** A quiet window of a channel: the instants `start <= t < end` (epoch milliseconds). */
export interface QuietWindow {
  start: number;
  end: number;
}

/** What the instant computations read of a schedule (its stored form, or the schema's output). */
export interface QuietHoursLike {
  timeZone: string;
  quietHours?:
    | readonly { days: readonly Weekday[]; start: string; end: string; channels?: readonly Channel[] | undefined }[]
    | undefined;
}

export interface DigestLike {
  cadence: 'daily' | 'weekly';
  at: string;
  day?: Weekday | undefined;
}

/**
 * How far a search for a free instant may go: a validated schedule leaves each channel a free
 * wall-clock minute every week, which a daylight-saving change can take away one week (a free
 * hour that the change skips); 5 weeks is far beyond any zone's data. A schedule that is never
 * free (one the schema would have refused) fails there instead of looping.
 */
export const MAX_SEARCH_DAYS = 35;

interface ParsedRule {
  weekdays: Set<number>;
  start: number;
  end: number;
}

const parseRules = (schedule: QuietHoursLike, channel: Channel): ParsedRule[] =>
  rulesOfChannel(schedule.quietHours, channel).map((rule) => ({
    weekdays: new Set(rule.days.map((day) => WEEKDAYS.indexOf(day))),
    start: minuteOfDay(rule.start),
    end: minuteOfDay(rule.end),
  }));

/** The non-empty windows of `rules` that start on local day `day` (daysFromCivil). */
const windowsStartingOn = (timeZone: string, rules: readonly ParsedRule[], day: number): QuietWindow[] => {
  const weekday = weekdayOfDays(day);
  const windows: QuietWindow[] = [];
  for (const rule of rules) {
    if (!rule.weekdays.has(weekday)) continue;
    const start = instantOfLocal(timeZone, day, rule.start);
    const end = instantOfLocal(timeZone, rule.start < rule.end ? day : day + 1, rule.end);
    if (end > start) windows.push({ start, end });
  }
  return windows;
};

/**
 * The quiet windows of `channel` that start on the local days `fromDay` to `toDay` (daysFromCivil),
 * in order of their start.
 */
export const quietWindows = (
  schedule: QuietHoursLike,
  channel: Channel,
  fromDay: number,
  toDay: number,
): QuietWindow[] => {
  const rules = parseRules(schedule, channel);
  const windows: QuietWindow[] = [];
  for (let day = fromDay; day <= toDay; day += 1) windows.push(...windowsStartingOn(schedule.timeZone, rules, day));
  return windows.sort((a, b) => a.start - b.start || a.end - b.end);
};

// A window that contains an instant started at most two local days before the instant's local
// day: a window lasts less than two days of wall time, and no zone's offset changes by a day.
const LOOK_BACK_DAYS = 2;

/** Whether `at` is inside a quiet window of `channel`. */
export const isQuiet = (schedule: QuietHoursLike, channel: Channel, at: number): boolean => {
  const rules = parseRules(schedule, channel);
  if (rules.length === 0) return false;
  const today = localDayAt(schedule.timeZone, at);
  for (let day = today - LOOK_BACK_DAYS; day <= today; day += 1) {
    for (const window of windowsStartingOn(schedule.timeZone, rules, day)) {
      if (window.start <= at && at < window.end) return true;
    }
  }
  return false;
};

/**
 * The first instant at or after `from` outside every quiet window of `channel`: `from` itself
 * when it is free, else the end of the chain of windows holding it (a window that starts where
 * another ends, or inside it, continues the chain: across midnight, across rules, across
 * daylight-saving changes). The days are read in order, each once: the cost follows the length
 * of the chain (at most a week for a valid schedule, two when a daylight-saving change takes a
 * week's free minute away), not the length of a window or of the wait before `from`.
 */
export const firstFreeInstant = (schedule: QuietHoursLike, channel: Channel, from: number): number => {
  const rules = parseRules(schedule, channel);
  if (rules.length === 0) return from;
  const { timeZone } = schedule;
  let open: QuietWindow[] = [];
  let nextDay = localDayAt(timeZone, from) - LOOK_BACK_DAYS;
  let free = from;
  for (;;) {
    // Windows starting after the next local day start after `free`: read the days up to it.
    const horizon = localDayAt(timeZone, free) + 1;
    for (; nextDay <= horizon; nextDay += 1) open.push(...windowsStartingOn(timeZone, rules, nextDay));
    let moved = false;
    for (const window of open) {
      if (window.start <= free && free < window.end) {
        free = window.end;
        moved = true;
      }
    }
    if (!moved) return free;
    open = open.filter((window) => window.end > free);
    if (free - from > MAX_SEARCH_DAYS * DAY) {
      throw new Error(`${channel} has no free instant within ${MAX_SEARCH_DAYS} days in ${timeZone}`);
    }
  }
};

/**
 * The first digest slot at or after `from`: daily at `digest.at` local time, weekly on
 * `digest.day` at `digest.at`; a slot whose wall time a forward change skips moves forward by
 * the gap, one a backward change repeats is its first occurrence (its time was chosen: quiet
 * hours do not move it). At most 10 wall-time conversions.
 */
export const nextDigestSlot = (timeZone: string, digest: DigestLike, from: number): number => {
  const at = minuteOfDay(digest.at);
  let weekday: number | undefined;
  if (digest.cadence === 'weekly') {
    if (digest.day === undefined) throw new RangeError('a weekly digest has a day');
    weekday = WEEKDAYS.indexOf(digest.day);
  }
  const today = localDayAt(timeZone, from);
  // From the day before: a slot moved forward past midnight by a gap may fall on `from`'s day.
  for (let day = today - 1; day <= today + 8; day += 1) {
    if (weekday !== undefined && weekdayOfDays(day) !== weekday) continue;
    const slot = instantOfLocal(timeZone, day, at);
    if (slot >= from) return slot;
  }
  throw new Error(`no digest slot within 9 days in ${timeZone}`);
};
