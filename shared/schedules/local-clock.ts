/**
 * A zone's wall clock through V8's local time. Node lets a process change TZ at run time, and V8
 * then takes the new zone from ICU, the data Intl reads: reading a Date's local fields costs well
 * under a microsecond, and changing TZ some 10 µs, where the first Intl formatter of a process
 * costs some 12 ms of CPU (docs/design.md, Delivery schedules: time zones). TZ is set, read and
 * restored within one synchronous call (one question, or one computation: inOneSwitch), so no
 * other code ever sees it changed.
 *
 * Used only where it demonstrably reads the named zone (localClockKnows), since a name ICU does
 * not know exactly (a link in other case, `US/EASTERN`) gives no error there, only a fixed offset
 * (zero, or the C library's offset without its daylight saving time); elsewhere, as under Jest
 * (whose `process.env` is a copy that never reaches Node), the zone code uses Intl.
 */

const SECOND = 1000;

// The zone TZ is switched to, while a computation (inOneSwitch) runs; undefined when TZ is the
// process's own.
let switchedTo: string | undefined;
let saved: string | undefined;
let depth = 0;

const restore = () => {
  if (switchedTo === undefined) return;
  switchedTo = undefined;
  if (saved === undefined) delete process.env.TZ;
  else process.env.TZ = saved;
};

const switchTo = (timeZone: string) => {
  if (switchedTo === timeZone) return;
  if (switchedTo === undefined) saved = process.env.TZ;
  process.env.TZ = timeZone;
  switchedTo = timeZone;
};

/**
 * Runs a synchronous computation during which TZ, once switched to a zone, stays switched until
 * it returns (or throws): changing TZ costs some 10 µs, reading the clock after it well under 1,
 * and a cold computation asks a zone some 10 to 40 times. Nothing in it may read the process's
 * own local time. Nested calls share the outermost one's switch.
 */
export const inOneSwitch = <T>(compute: () => T): T => {
  depth += 1;
  try {
    return compute();
  } finally {
    depth -= 1;
    if (depth === 0) restore();
  }
};

/** Runs `read` with TZ set to `timeZone`; outside inOneSwitch, TZ is restored at once. */
const withTimeZone = <T>(timeZone: string, read: () => T): T => {
  switchTo(timeZone);
  try {
    return read();
  } finally {
    if (depth === 0) restore();
  }
};

/** The local wall clock at `at` read as UTC, minus `at` to the whole second: the offset in force. */
const localOffset = (at: number): number => {
  const local = new Date(at);
  const wall = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
  wall.setUTCFullYear(local.getFullYear(), local.getMonth(), local.getDate());
  wall.setUTCHours(local.getHours(), local.getMinutes(), local.getSeconds(), 0);
  return wall.getTime() - Math.floor(at / SECOND) * SECOND;
};

/** The offset of `timeZone` at `at`, in milliseconds east of UTC, through V8's local time. */
export const localClockOffset = (timeZone: string, at: number): number => {
  const offset = withTimeZone(timeZone, () => localOffset(at));
  if (!Number.isFinite(offset)) throw new RangeError(`No wall clock for ${at}`);
  return offset;
};

/**
 * Instants whose offsets tell a zone of ICU's from what V8 falls back to: 1800 (before standard
 * time, every zone of tzdata kept local mean time, never a whole-hour offset) and this year's
 * January and July (daylight saving time). A fallback zone has one offset at all three.
 */
const probes = (): number[] => {
  const year = new Date().getUTCFullYear();
  return [Date.UTC(1800, 0, 1), Date.UTC(year, 0, 1), Date.UTC(year, 6, 1)];
};

const offsetsAt = (timeZone: string, instants: readonly number[]) =>
  withTimeZone(timeZone, () => instants.map(localOffset));

let switchWorks: boolean | undefined;

/**
 * Whether V8's local time reads `timeZone` as ICU defines it, so that localClockOffset answers as
 * Intl does: TZ takes effect in this process (with TZ=UTC the probes read zero, which a machine in
 * another zone where TZ has no effect would not), and the zone's offsets at the probes differ,
 * which no fallback's do (nor those of a machine in UTC where TZ has no effect). Zones with one
 * offset at all three (UTC, Etc/GMT+5) are left to Intl. Some 20 µs: the zone code asks once per
 * zone it remembers (zone.ts keeps the answer with the zone).
 */
export const localClockKnows = (timeZone: string): boolean => {
  const instants = probes();
  switchWorks ??= offsetsAt('UTC', instants).every((offset) => offset === 0);
  return switchWorks && new Set(offsetsAt(timeZone, instants)).size > 1;
};
