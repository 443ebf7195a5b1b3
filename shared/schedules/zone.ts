/**
 * Time-zone arithmetic from the runtime's ICU data only, through one Intl formatter per zone
 * (docs/design.md, Delivery schedules: time zones). ICU lists no transitions: the offset at the
 * start of each UTC day is asked and remembered, and where two consecutive days differ the
 * transition is found by bisection over the day's seconds. This assumes a zone changes its offset
 * at most once within a UTC day (true of every zone in tzdata since 1970).
 *
 * Instants are epoch milliseconds; offsets are milliseconds east of UTC (local = UTC + offset).
 */

const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const DAY = 24 * 60 * MINUTE;

/** A calendar date (proleptic Gregorian); month 1-12. */
export interface CivilDate {
  year: number;
  month: number;
  day: number;
}

/** The wall clock of a zone at an instant. `weekday`: 0 = Monday ... 6 = Sunday. */
export interface WallClock extends CivilDate {
  hour: number;
  minute: number;
  second: number;
  weekday: number;
  /** The zone's offset at that instant, in milliseconds east of UTC. */
  offset: number;
}

/** A change of a zone's offset: from `at` on, the offset is `after` (it was `before`). */
export interface Transition {
  at: number;
  before: number;
  after: number;
}

// Calendar arithmetic (H. Hinnant's days_from_civil / civil_from_days): valid for every year,
// unlike Date.UTC, which reads the years 0 to 99 as 1900 to 1999.

/** Days from 1970-01-01 to `date`. */
export const daysFromCivil = ({ year, month, day }: CivilDate): number => {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
};

/** The date `days` days after 1970-01-01. */
export const civilFromDays = (days: number): CivilDate => {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
};

/** 0 = Monday ... 6 = Sunday, for a day number of daysFromCivil (1970-01-01 was a Thursday). */
export const weekdayOfDays = (days: number): number => (((days + 3) % 7) + 7) % 7;

// --- The one question asked of ICU, and what is remembered of its answers --------------------

interface ZoneData {
  timeZone: string;
  /** The zone's formatter: every question about the zone goes through it. */
  formatter: Intl.DateTimeFormat;
  /** UTC day number -> the offset at that day's 00:00 UTC. */
  dayStarts: Map<number, number>;
  /** UTC day number -> the instant of the transition inside that day (only days that have one). */
  transitions: Map<number, number>;
}

// A bound on what is remembered per zone (some 11 years of days): past it, the zone starts over.
const MAX_REMEMBERED_DAYS = 4096;
// A bound on the zone names remembered (ICU knows some 600 zones and as many aliases; a name in
// another case is another key): past it, every zone starts over.
const MAX_REMEMBERED_ZONES = 2048;

const zones = new Map<string, ZoneData>();
let formattersCreated = 0;
let offsetLookups = 0;

/**
 * What the zone code has asked of ICU since the process started (or since resetZoneMemory):
 * formatters created, offsets asked, zones remembered.
 */
export const zoneStats = (): {
  formattersCreated: number;
  offsetLookups: number;
  zonesRemembered: number;
} => ({
  formattersCreated,
  offsetLookups,
  zonesRemembered: zones.size,
});

/**
 * Forgets every remembered day offset and transition (not the formatters) and zeroes the
 * counters: for tests that count the questions of a cold computation.
 */
export const resetZoneMemory = (): void => {
  for (const zone of zones.values()) {
    zone.dayStarts.clear();
    zone.transitions.clear();
  }
  offsetLookups = 0;
  formattersCreated = 0;
};

/** Throws a RangeError for a name ICU does not know. */
const createFormatter = (timeZone: string): Intl.DateTimeFormat => {
  const formatter = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  formattersCreated += 1;
  return formatter;
};

const rememberZone = (timeZone: string, formatter: Intl.DateTimeFormat): ZoneData => {
  const data: ZoneData = { timeZone, formatter, dayStarts: new Map(), transitions: new Map() };
  if (zones.size >= MAX_REMEMBERED_ZONES) zones.clear();
  zones.set(timeZone, data);
  return data;
};

/** A zone's data, with its formatter created on first use and kept for the process. */
const zoneData = (timeZone: string): ZoneData =>
  zones.get(timeZone) ?? rememberZone(timeZone, createFormatter(timeZone));

/**
 * The offset at `at` through Intl. Only the month, day and time of the formatted wall clock are
 * read: the year is the one of the UTC date or its neighbour that puts the offset within a day,
 * which holds for every era (Intl prints years before 1 AD without sign).
 */
const formattedOffset = (formatter: Intl.DateTimeFormat, at: number): number => {
  let month = 0;
  let day = 0;
  let hour = 0;
  let minute = 0;
  let second = 0;
  for (const part of formatter.formatToParts(at)) {
    if (part.type === 'month') month = Number(part.value);
    else if (part.type === 'day') day = Number(part.value);
    else if (part.type === 'hour') hour = Number(part.value) % 24;
    else if (part.type === 'minute') minute = Number(part.value);
    else if (part.type === 'second') second = Number(part.value);
  }
  const wholeSecond = Math.floor(at / SECOND) * SECOND;
  const utcYear = civilFromDays(Math.floor(at / DAY)).year;
  const timeOfDay = ((hour * 60 + minute) * 60 + second) * SECOND;
  for (const year of [utcYear, utcYear - 1, utcYear + 1]) {
    const offset = daysFromCivil({ year, month, day }) * DAY + timeOfDay - wholeSecond;
    if (Math.abs(offset) < DAY) return offset;
  }
  throw new Error(`Intl answered an unreadable wall clock for ${new Date(at).toISOString()}`);
};

/** The offset at `at`, asked of ICU (one question, counted). */
const askOffset = (zone: ZoneData, at: number): number => {
  offsetLookups += 1;
  return formattedOffset(zone.formatter, at);
};

const remember = (zone: ZoneData) => {
  if (zone.dayStarts.size > MAX_REMEMBERED_DAYS) {
    zone.dayStarts.clear();
    zone.transitions.clear();
  }
};

/** The offset at 00:00 UTC of UTC day `day`. */
const dayStartOffset = (zone: ZoneData, day: number): number => {
  const known = zone.dayStarts.get(day);
  if (known !== undefined) return known;
  remember(zone);
  const offset = askOffset(zone, day * DAY);
  zone.dayStarts.set(day, offset);
  return offset;
};

/**
 * The instant of the transition inside UTC day `day`, whose start has offset `before` and whose
 * end (the next day's start) another: the first whole second whose offset is not `before`
 * (tzdata's transitions fall on whole seconds), by bisection over the day's 86,400 seconds.
 */
const transitionInDay = (zone: ZoneData, day: number, before: number): number => {
  const known = zone.transitions.get(day);
  if (known !== undefined) return known;
  let low = (day * DAY) / SECOND; // offset `before`
  let high = ((day + 1) * DAY) / SECOND; // another offset
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (askOffset(zone, middle * SECOND) === before) low = middle;
    else high = middle;
  }
  zone.transitions.set(day, high * SECOND);
  return high * SECOND;
};

/** The transition inside UTC day `day`, if its start and end offsets differ. */
const transitionOfDay = (zone: ZoneData, day: number): Transition | undefined => {
  const before = dayStartOffset(zone, day);
  const after = dayStartOffset(zone, day + 1);
  return before === after ? undefined : { at: transitionInDay(zone, day, before), before, after };
};

// --- The public arithmetic --------------------------------------------------------------------

/** The zone's offset at instant `at`, in milliseconds east of UTC. */
export const offsetAt = (timeZone: string, at: number): number => {
  const zone = zoneData(timeZone);
  const day = Math.floor(at / DAY);
  const transition = transitionOfDay(zone, day);
  if (!transition) return dayStartOffset(zone, day);
  return at < transition.at ? transition.before : transition.after;
};

/** The zone's transitions at or after `from` and before `to`, in order (cost: one per day, 17 per transition). */
export const transitionsBetween = (timeZone: string, from: number, to: number): Transition[] => {
  const zone = zoneData(timeZone);
  const found: Transition[] = [];
  for (let day = Math.floor(from / DAY); day * DAY < to; day += 1) {
    const transition = transitionOfDay(zone, day);
    if (transition && transition.at >= from && transition.at < to) found.push(transition);
  }
  return found;
};

/** The local day number (daysFromCivil) of instant `at` in the zone. */
export const localDayAt = (timeZone: string, at: number): number => Math.floor((at + offsetAt(timeZone, at)) / DAY);

/** The zone's wall clock at instant `at`. */
export const wallClockAt = (timeZone: string, at: number): WallClock => {
  const offset = offsetAt(timeZone, at);
  const local = at + offset;
  const days = Math.floor(local / DAY);
  const sinceMidnight = local - days * DAY;
  return {
    ...civilFromDays(days),
    hour: Math.floor(sinceMidnight / (60 * MINUTE)),
    minute: Math.floor(sinceMidnight / MINUTE) % 60,
    second: Math.floor(sinceMidnight / SECOND) % 60,
    weekday: weekdayOfDays(days),
    offset,
  };
};

/**
 * The instant of a wall time, `minuteOfDay` minutes after midnight of local day `days`
 * (daysFromCivil), with RFC 5545 / Temporal `compatible` disambiguation: a wall time that a
 * forward transition skips moves forward by the length of the gap (it is read with the offset
 * before the transition); one that a backward transition repeats is its first occurrence.
 * Europe/Berlin: 2026-03-29 02:30 is 01:30Z (03:30 CEST), 2026-10-25 02:30 is 00:30Z (CEST).
 */
export const instantOfLocal = (timeZone: string, days: number, minuteOfDay: number): number => {
  const wall = days * DAY + minuteOfDay * MINUTE;
  // Every offset is less than a day, so the instant lies within a day of `wall` read as UTC.
  const transitions = transitionsBetween(timeZone, wall - DAY, wall + DAY);
  const first = offsetAt(timeZone, wall - DAY);
  // The offsets in force on the pieces between the transitions: a candidate instant is valid if
  // it falls on the piece whose offset produced it.
  let earliest: number | undefined;
  let offset = first;
  let pieceStart = Number.NEGATIVE_INFINITY;
  for (let i = 0; i <= transitions.length; i += 1) {
    const pieceEnd = transitions[i]?.at ?? Number.POSITIVE_INFINITY;
    const candidate = wall - offset;
    if (candidate >= pieceStart && candidate < pieceEnd && (earliest === undefined || candidate < earliest)) {
      earliest = candidate;
    }
    const next = transitions[i];
    if (next) {
      offset = next.after;
      pieceStart = next.at;
    }
  }
  if (earliest !== undefined) return earliest;
  // No valid candidate: `wall` lies in the gap of a forward transition; read it with the offset
  // before the gap, which moves it forward by the gap's length.
  for (let i = transitions.length - 1; i >= 0; i -= 1) {
    const transition = transitions[i] as Transition;
    if (transition.at + transition.before <= wall) return wall - transition.before;
  }
  return wall - first;
};

/** instantOfLocal for a calendar date. */
export const instantOfWallTime = (timeZone: string, date: CivilDate, minuteOfDay: number): number =>
  instantOfLocal(timeZone, daysFromCivil(date), minuteOfDay);

// --- Which names are zones ------------------------------------------------------------------

/** The shape of an IANA zone name: segments of letters, digits, `_`, `-` and `+` (so no offset such as `+01:00`). */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z][A-Za-z0-9_+-]*)*$/;
/** Each segment of an IANA name starts with a capital. */
const IANA_CASE = /^[A-Z][^/]*(?:\/[A-Z][^/]*)*$/;
export const MAX_TIME_ZONE_LENGTH = 64;
const FIXED_OFFSET_ZONE = /^Etc\/GMT[+-]\d{1,2}$/;

let listedZones: Set<string> | undefined;

/**
 * Why `name` is not a time zone the service accepts, or undefined when it is one: the shape of an
 * IANA name (no offsets such as `+01:00`), known to ICU and resolved by it to a listed zone, `UTC`
 * or `Etc/GMT±N` (so current IANA names and backward links such as `Asia/Kolkata` and `US/Eastern`
 * pass, ICU-only ids such as `SystemV/AST4` do not), and spelled in IANA's case (ICU ignores case:
 * `europe/berlin` is refused with the right spelling).
 */
export const timeZoneIssue = (name: string): string | undefined => {
  const notAZone = 'timeZone must be an IANA time zone name, such as Europe/Berlin';
  if (name.length > MAX_TIME_ZONE_LENGTH || !ZONE_NAME.test(name)) return notAZone;
  listedZones ??= new Set(Intl.supportedValuesOf('timeZone'));
  // A listed name passes every rule below (each is its own resolution, in IANA case): accepted
  // without a formatter, whose first creation in a process sets up ICU (docs/design.md), a cold
  // start's worth for a route that only validates.
  if (listedZones.has(name)) return undefined;
  const known = zones.get(name);
  let formatter: Intl.DateTimeFormat;
  try {
    formatter = known?.formatter ?? createFormatter(name);
  } catch {
    return notAZone;
  }
  const resolved = formatter.resolvedOptions().timeZone;
  if (!(resolved === 'UTC' || listedZones.has(resolved) || FIXED_OFFSET_ZONE.test(resolved))) return notAZone;
  if (resolved !== name && resolved.toLowerCase() === name.toLowerCase()) {
    return `timeZone must be spelled ${resolved}`;
  }
  if (!IANA_CASE.test(name)) return 'timeZone must be spelled in IANA case, each part starting with a capital';
  // Remembered only once accepted, so refused names cannot fill the memory.
  if (!known) rememberZone(name, formatter);
  return undefined;
};
