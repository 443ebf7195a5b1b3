import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from '@jest/globals';

// Zone offsets through V8's local time (shared/schedules/local-clock.ts) only work in a real Node
// process: Jest's `process.env` is a copy that never reaches Node, so under Jest the zone code
// takes Intl's way. These tests run the zone code in a child process, as a function does.
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Report {
  tzAfter: string | null;
  coldBerlin: { offset: number; formattersCreated: number; zonesOnLocalTime: number };
  knows: Record<string, boolean>;
  zones: number;
  onLocalTime: number;
  compared: number;
  transitions: number;
  differences: string[];
}

// For every zone ICU lists and some of its aliases: the offset at each UTC day start of 2026 and
// on both sides of every change in it, by the zone code against a fresh Intl formatter.
const SCRIPT = `
import { offsetAt, zoneStats } from '#shared/schedules/zone.js';
import { inOneSwitch, localClockKnows } from '#shared/schedules/local-clock.js';
const cold = offsetAt('Europe/Berlin', Date.UTC(2026, 6, 1));
const coldBerlin = { offset: cold, ...zoneStats() };
const intl = (zone) => {
  const f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  return (at) => {
    const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, Number(x.value)]));
    return Date.UTC(p.year, p.month - 1, p.day, p.hour % 24, p.minute, p.second) - Math.floor(at / 1000) * 1000;
  };
};
const zones = [...Intl.supportedValuesOf('timeZone'), 'Asia/Kolkata', 'Europe/Kyiv', 'US/Eastern', 'America/Argentina/Buenos_Aires'];
const differences = [];
let compared = 0, transitions = 0;
const check = (zone, expected, at) => {
  compared += 1;
  const got = offsetAt(zone, at);
  if (got !== expected(at)) differences.push(zone + ' ' + new Date(at).toISOString() + ': ' + got + ' vs ' + expected(at));
};
for (const zone of zones) {
  const expected = intl(zone);
  for (let day = Date.UTC(2026, 0, 1); day < Date.UTC(2027, 0, 1); day += 86400000) {
    check(zone, expected, day);
    if (expected(day) === expected(day + 86400000)) continue;
    let low = day / 1000, high = day / 1000 + 86400;
    while (high - low > 1) { const middle = Math.floor((low + high) / 2); if (expected(middle * 1000) === expected(day)) low = middle; else high = middle; }
    transitions += 1;
    for (const at of [high * 1000 - 1000, high * 1000 - 1, high * 1000, high * 1000 + 1000]) check(zone, expected, at);
  }
}
// A computation that throws with TZ switched leaves TZ as it was, as one that returns does.
try { inOneSwitch(() => { offsetAt('Asia/Tokyo', Date.UTC(1900, 0, 1)); offsetAt('Europe/Lisbon', Date.UTC(1901, 0, 1)); throw new Error('stop'); }); } catch {}
const knows = Object.fromEntries(['Europe/Berlin', 'Asia/Kolkata', 'US/Eastern', 'US/EASTERN', 'Us/Eastern', 'UTC', 'Etc/GMT+5', 'Antarctica/Troll'].map((name) => [name, localClockKnows(name)]));
process.stdout.write(JSON.stringify({ tzAfter: process.env.TZ ?? null, coldBerlin, knows, zones: zones.length, onLocalTime: zoneStats().zonesOnLocalTime, compared, transitions, differences: differences.slice(0, 20) }));
`;

const run = async (tz: string | undefined): Promise<Report> => {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '' };
  if (tz !== undefined) env.TZ = tz;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', SCRIPT],
    { cwd: REPO_ROOT, env, maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout) as Report;
};

describe.each([
  ['as on Lambda (TZ=:UTC)', ':UTC'],
  ['on a laptop in another zone (TZ=America/New_York)', 'America/New_York'],
  ['with TZ unset', undefined],
])('zone offsets in a real Node process, %s', (_name, tz) => {
  let report: Report;
  beforeAll(async () => {
    report = await run(tz);
  }, 120_000);

  test('equal Intl’s for every zone ICU lists, at each day and each change of 2026; TZ is as it was, after a computation that throws too', () => {
    expect(report.differences).toEqual([]);
    expect(report.transitions).toBeGreaterThan(130);
    expect(report.compared).toBeGreaterThan(report.zones * 365);
    expect(report.tzAfter).toBe(tz ?? null);
  });

  test('a cold computation creates no Intl formatter (the first costs some 12 ms of CPU); names ICU does not know exactly, and fixed zones, go to Intl', () => {
    expect(report.coldBerlin).toMatchObject({ offset: 2 * 3_600_000, formattersCreated: 0, zonesOnLocalTime: 1 });
    expect(report.knows).toEqual({
      'Europe/Berlin': true,
      'Asia/Kolkata': true,
      'US/Eastern': true,
      // Links in other case (which ICU accepts in Intl) and zones of one offset: Intl's way.
      'US/EASTERN': false,
      'Us/Eastern': false,
      UTC: false,
      'Etc/GMT+5': false,
      'Antarctica/Troll': true,
    });
    // Every zone of a changing offset (all but UTC-like and fixed ones) went through local time.
    expect(report.onLocalTime).toBeGreaterThan(report.zones * 0.9);
  });
});
