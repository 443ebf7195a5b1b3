import { operationById } from '#tools/openapi/operations.js';
import type { CallCounter } from './counting.js';
import { ORG, users } from './ids.js';
import { type Call, cpuRatioOf, mustCall, pairedResolves, pairRow, readsOf } from './paired-resolves.js';
import { goal, type Section, section } from './report.js';
import { fmtNum, fmtRatio } from './stats.js';

const SET = operationById('setConfig').path;
const SET_SCHEDULE = operationById('setSchedule').path;
const ZONES = 50;

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
  const must = mustCall(call);
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
  const runs = await pairedResolves(call, counter, { base: withoutSchedules, measured: withSchedules, rounds });

  const s = section(
    'schedule-resolve',
    `4. Resolve at a time: ${fmtNum(userCount)} users with schedules in ${ZONES} zones`,
  );
  s.tables.push({
    title: `${fmtNum(userCount)} users of one document, an activity at ${at}; medians of ${rounds} rounds taking turns`,
    columns: ['resolve', 'time', 'CPU (this process)', 'read calls (max)'],
    rows: [
      pairRow('no schedules', runs, 'base'),
      pairRow(`every user a schedule (${ZONES} zones; quiet hours, snoozes, digests)`, runs, 'measured'),
    ],
  });
  const plainReads = Math.max(...runs.map((r) => readsOf(r.base)));
  const reads = Math.max(...runs.map((r) => readsOf(r.measured)));
  const cpuRatio = cpuRatioOf(runs);
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
