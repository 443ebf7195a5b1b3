import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from '@jest/globals';

// The zone code (shared/schedules/zone.ts) in a real Node process, as a function runs it: the
// same answers as a fresh Intl formatter whatever the process's own zone, and nothing
// process-global changed to get them.
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Report {
  tzAfter: string | null;
  localHourBefore: number;
  localHourAfter: number;
  zones: number;
  compared: number;
  transitions: number;
  differences: string[];
}

// For every zone ICU lists and some of its aliases: the offset at each UTC day start of 2026 and
// on both sides of every change in it, by the zone code against a fresh Intl formatter.
const SCRIPT = `
import { offsetAt } from '#shared/schedules/zone.js';
const probe = new Date(Date.UTC(2026, 6, 1, 12));
const localHourBefore = probe.getHours();
const intl = (zone) => {
  const f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  return (at) => {
    const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, Number(x.value)]));
    return Date.UTC(p.year, p.month - 1, p.day, p.hour % 24, p.minute, p.second) - Math.floor(at / 1000) * 1000;
  };
};
const every = Number(process.env.EVERY_NTH_ZONE);
const zones = [...Intl.supportedValuesOf('timeZone').filter((_, i) => i % every === 0), 'Asia/Kolkata', 'Europe/Kyiv', 'US/Eastern', 'US/EASTERN', 'Etc/GMT+5', 'America/Argentina/Buenos_Aires'];
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
process.stdout.write(JSON.stringify({ tzAfter: process.env.TZ ?? null, localHourBefore, localHourAfter: probe.getHours(), zones: zones.length, compared, transitions, differences: differences.slice(0, 20) }));
`;

const run = async (tz: string | undefined, everyNthZone: number): Promise<Report> => {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', EVERY_NTH_ZONE: String(everyNthZone) };
  if (tz !== undefined) env.TZ = tz;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', SCRIPT],
    { cwd: REPO_ROOT, env, maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout) as Report;
};

// Every zone as on Lambda; in a process of another zone (or none), every eighth zone and the
// aliases: what the process's own zone could change shows on any of them.
describe.each([
  ['as on Lambda (TZ=:UTC)', ':UTC', 1, 130],
  ['on a laptop in another zone (TZ=America/New_York)', 'America/New_York', 8, 15],
  ['with TZ unset', undefined, 8, 15],
])('zone offsets in a real Node process, %s', (_name, tz, everyNthZone, leastTransitions) => {
  let report: Report;
  beforeAll(async () => {
    report = await run(tz, everyNthZone);
  }, 120_000);

  test(`equal Intl’s for every ${everyNthZone === 1 ? '' : `${everyNthZone}th `}zone ICU lists, at each day and each change of 2026`, () => {
    expect(report.differences).toEqual([]);
    expect(report.transitions).toBeGreaterThan(leastTransitions);
    expect(report.compared).toBeGreaterThan(report.zones * 365);
  });

  test('leave the process’s own zone and local time as they were', () => {
    expect(report.tzAfter).toBe(tz ?? null);
    expect(report.localHourAfter).toBe(report.localHourBefore);
  });
});

/** The production sources under `dir`, recursively (TypeScript, no tests). */
const sourcesUnder = (dir: string): string[] =>
  readdirSync(join(REPO_ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name));

test('nothing under shared/ or functions/ assigns process.env at run time (a process-global change every other reader would see)', () => {
  const assignment =
    /process\.env(?:\.\w+|\[[^\]]+\])\s*(?:=(?!=)|\?\?=|\|\|=)|delete\s+process\.env|Object\.assign\(\s*process\.env/;
  const offenders = [...sourcesUnder('shared'), ...sourcesUnder('functions')].filter((file) =>
    assignment.test(readFileSync(join(REPO_ROOT, file), 'utf8')),
  );
  expect(offenders).toEqual([]);
});
