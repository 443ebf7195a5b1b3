import { operationById } from '#tools/openapi/operations.js';
import type { CallCounter, CallSummary } from './counting.js';
import { ORG, users } from './ids.js';
import { cpuSecondsSince } from './lambda-cpu.js';
import { goal, type Section, section } from './report.js';
import { fmtMs, fmtNum, fmtRatio, median } from './stats.js';

const SET = operationById('setConfig').path;
const RESOLVE = operationById('resolveConfig').path;
const SET_SCHEDULE = operationById('setSchedule').path;
const ZONES = 50;

type Call = (path: string, data: unknown) => Promise<{ status: number; text: string }>;

interface Run {
  cpuSeconds: number;
  ms: number;
  summary: CallSummary;
}

/** 50 zones of every kind of offset: whole, half- and quarter-hour, both hemispheres' daylight saving, none. */
const zones = (): string[] => {
  const all = Intl.supportedValuesOf('timeZone');
  const picked = [
    'Europe/Berlin',
    'America/New_York',
    'Australia/Sydney',
    'Asia/Kolkata',
    'Asia/Kathmandu',
    'Australia/Adelaide',
    'America/St_Johns',
    'Pacific/Chatham',
    'America/Santiago',
    'UTC',
  ];
  for (let i = 0; picked.length < ZONES; i += 7) {
    const zone = all[i % all.length] as string;
    if (!picked.includes(zone)) picked.push(zone);
  }
  return picked;
};

/**
 * Contract 12's cost: config/resolve with an activity for N users who each have a schedule (in
 * one of 50 zones: quiet nights, some a snooze, some a digest), against the same resolve of the
 * same stored entries without schedules. Rounds take turns; CPU is this process's.
 */
export const scheduleResolveSection = async (
  call: Call,
  counter: CallCounter,
  { userCount, rounds }: { userCount: number; rounds: number },
): Promise<Section> => {
  const ids = users(userCount, 'schedule-user');
  const plain = `${ORG}-no-schedules`;
  const scheduled = `${ORG}-schedules`;
  const must = async (path: string, data: unknown) => {
    const response = await call(path, data);
    if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status} ${response.text.slice(0, 300)}`);
  };
  for (const organizationId of [plain, scheduled]) {
    await must(SET, { organizationId, userIds: ids, documentIds: ['doc-s'], config: { email: 'ALL', slack: 'MINE' } });
    // Every user has an organization-level entry in both, so that the stored items differ only by the schedule.
    await must(SET, { organizationId, userIds: ids, config: { inbox: 'ALL' } });
  }
  const zoneList = zones();
  const at = '2026-11-23T22:30:00Z';
  const perZone = Math.ceil(userCount / zoneList.length);
  for (const [z, timeZone] of zoneList.entries()) {
    const group = ids.slice(z * perZone, (z + 1) * perZone);
    if (group.length === 0) continue;
    const kind = z % 3;
    await must(SET_SCHEDULE, {
      organizationId: scheduled,
      userIds: group,
      schedule: {
        timeZone,
        quietHours: [
          { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '22:00', end: '07:00' },
          { days: ['sat', 'sun'], start: '12:00', end: '14:00', channels: ['slack'] },
        ],
        ...(kind === 1 ? { snoozeUntil: '2026-11-30T08:00:00Z' } : {}),
        ...(kind === 2 ? { digest: { channels: ['email'], cadence: 'weekly', day: 'fri', at: '08:30' } } : {}),
      },
    });
  }
  const activity = { involvedUserIds: ids.slice(0, 10) };
  const withoutSchedules = { organizationId: plain, documentId: 'doc-s', userIds: ids, activity, at };
  const withSchedules = { organizationId: scheduled, documentId: 'doc-s', userIds: ids, activity, at };
  const timed = async (data: unknown): Promise<Run> => {
    const from = counter.mark();
    const cpu = process.cpuUsage();
    const started = performance.now();
    await must(RESOLVE, data);
    return { ms: performance.now() - started, cpuSeconds: cpuSecondsSince(cpu), summary: counter.summary(from) };
  };
  await timed(withoutSchedules);
  await timed(withSchedules);
  const runs: { plain: Run; scheduled: Run }[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      const a = await timed(withoutSchedules);
      runs.push({ plain: a, scheduled: await timed(withSchedules) });
    } else {
      const b = await timed(withSchedules);
      runs.push({ plain: await timed(withoutSchedules), scheduled: b });
    }
  }

  const s = section(
    'schedule-resolve',
    `4. Resolve at a time: ${fmtNum(userCount)} users with schedules in ${ZONES} zones`,
  );
  const readsOf = (run: Run) => run.summary.reads - run.summary.credentialReads;
  const row = (name: string, pick: (r: (typeof runs)[number]) => Run) => [
    name,
    fmtMs(median(runs.map((r) => pick(r).ms))),
    fmtMs(median(runs.map((r) => pick(r).cpuSeconds * 1000))),
    fmtNum(Math.max(...runs.map((r) => readsOf(pick(r))))),
  ];
  s.tables.push({
    title: `${fmtNum(userCount)} users of one document, an activity at ${at}; medians of ${rounds} rounds taking turns`,
    columns: ['resolve', 'time', 'CPU (this process)', 'read calls (max)'],
    rows: [
      row('no schedules', (r) => r.plain),
      row(`every user a schedule (${ZONES} zones; quiet hours, snoozes, digests)`, (r) => r.scheduled),
    ],
  });
  const plainReads = Math.max(...runs.map((r) => readsOf(r.plain)));
  const reads = Math.max(...runs.map((r) => readsOf(r.scheduled)));
  const cpuRatio = median(runs.map((r) => r.scheduled.cpuSeconds / r.plain.cpuSeconds));
  s.goals.push(
    goal(
      'resolve with schedules: read calls beyond the same resolve without',
      fmtNum(reads - plainReads),
      '0 (the schedule is on the entry resolve reads)',
      reads <= plainReads,
    ),
    goal('resolve with schedules: CPU against without', fmtRatio(cpuRatio), '<= 1.3x', cpuRatio <= 1.3),
  );
  s.notes.push(
    'Both organizations hold the same entries; in one, every user also has a schedule on the organization-level entry resolve reads anyway. The CPU ratio is the median of the paired rounds.',
  );
  s.data = { runs, reads, plainReads, cpuRatio, zones: zoneList };
  return s;
};
