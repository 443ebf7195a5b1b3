import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, test } from '@jest/globals';
import * as z from 'zod/mini';
import { BUILT_IN_DEFAULTS } from '#shared/api/channels.js';
import { ApiError } from '#shared/api/errors.js';
import { DynamoScheduleStore } from '#shared/preferences/dynamo-schedule-store.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import { resetConfig } from '#shared/preferences/reset.js';
import { resolveConfig } from '#shared/preferences/resolve.js';
import { setScheduleRequest } from '#shared/preferences/routes/set-schedule.js';
import { getSchedule, setSchedule } from '#shared/preferences/schedules.js';
import { setConfig } from '#shared/preferences/service.js';
import type { ScheduleInput } from '#shared/schedules/schema.js';
import { uniqueId, useTestDynamo } from '../support/dynamo.js';

const dynamo = useTestDynamo();
let store: DynamoPreferenceStore;
let schedules: DynamoScheduleStore;

beforeEach(async () => {
  org = uniqueId('acme');
  store = new DynamoPreferenceStore(dynamo.doc, dynamo.tables.config);
  schedules = new DynamoScheduleStore(dynamo.doc, dynamo.tables.config);
});

/** The running test's organization: a fresh one each test. */
let org = '';
const NOW = new Date('2026-11-23T12:00:00.000Z'); // a Monday
const now = () => NOW;
const BERLIN_NIGHTS: ScheduleInput = {
  timeZone: 'Europe/Berlin',
  quietHours: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '22:00', end: '07:00' }],
};
/** As the route calls it: with the request parsed (a rule's channels filled in). */
const set = (userIds: string[], schedule: ScheduleInput | null, at = now) =>
  setSchedule(
    { store: schedules, now: at },
    z.parse(setScheduleRequest, { organizationId: org, userIds, schedule }),
    'ak',
  );
const orgItem = async (userId: string) =>
  (
    await dynamo.doc.send(
      new GetCommand({
        TableName: dynamo.tables.config,
        Key: entryTableKey({ organizationId: org, userId, documentId: null }),
        ConsistentRead: true,
      }),
    )
  ).Item;
const resolve = (userIds: string[], extra: Record<string, unknown> = {}) =>
  resolveConfig(
    { store, defaults: BUILT_IN_DEFAULTS, now },
    { organizationId: org, documentId: 'doc-1', userIds, activity: { involvedUserIds: userIds }, ...extra },
  );

describe('schedule/set and schedule/get', () => {
  test('a schedule for 150 users (a batch and a rest), read back with its channels filled in, instants in UTC', async () => {
    const users = Array.from({ length: 150 }, (_, i) => `u${i}`);
    const result = await set(users, { ...BERLIN_NIGHTS, snoozeUntil: '2026-11-30T09:00:00+01:00' });
    expect(Object.values(result).every((r) => r.success && r.scope === 'organization' && r.documentId === null)).toBe(
      true,
    );
    expect(await getSchedule({ store }, { organizationId: org, userId: 'u149' })).toEqual({
      userId: 'u149',
      schedule: {
        timeZone: 'Europe/Berlin',
        quietHours: [
          { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '22:00', end: '07:00', channels: ['email', 'slack'] },
        ],
        snoozeUntil: '2026-11-30T08:00:00.000Z',
      },
    });
    expect(await getSchedule({ store }, { organizationId: org, userId: 'nobody' })).toEqual({
      userId: 'nobody',
      schedule: null,
    });
  });

  test('null removes it; an organization-level entry holding nothing else goes, one with channels stays', async () => {
    await setConfig({ store }, { organizationId: org, userIds: ['keeps'], config: { email: 'NONE' } }, 'ak');
    await set(['keeps', 'goes'], BERLIN_NIGHTS);
    await set(['keeps', 'goes'], null, () => new Date(NOW.getTime() + 1000));
    expect(await orgItem('goes')).toBeUndefined();
    expect(await orgItem('keeps')).toMatchObject({ email: 'NONE' });
    expect((await orgItem('keeps'))?.schedule).toBeUndefined();
    // Removing what is not there succeeds and writes nothing.
    expect((await set(['never'], null)).never?.success).toBe(true);
    expect(await orgItem('never')).toBeUndefined();
  });

  test('a reset of every channel keeps an entry that holds a schedule', async () => {
    await setConfig({ store }, { organizationId: org, userIds: ['ruth'], config: { inbox: 'NONE' } }, 'ak');
    await set(['ruth'], BERLIN_NIGHTS);
    await resetConfig({ store }, { organizationId: org, userIds: ['ruth'] }, 'ak');
    expect((await getSchedule({ store }, { organizationId: org, userId: 'ruth' })).schedule?.timeZone).toBe(
      'Europe/Berlin',
    );
    expect((await orgItem('ruth'))?.inbox).toBeUndefined();
  });

  test('a write stamped older than the stored schedule changes nothing', async () => {
    await set(['late'], BERLIN_NIGHTS);
    await set(['late'], { timeZone: 'UTC' }, () => new Date(NOW.getTime() - 60_000));
    expect((await getSchedule({ store }, { organizationId: org, userId: 'late' })).schedule?.timeZone).toBe(
      'Europe/Berlin',
    );
  });

  test('a snooze more than 31 days after the request is INVALID_ARGUMENT, and nothing is written', async () => {
    const error = await set(['snoozy'], { timeZone: 'UTC', snoozeUntil: '2026-12-25T12:00:01Z' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: expect.stringContaining('data.schedule.snoozeUntil'),
    });
    expect(await orgItem('snoozy')).toBeUndefined();
  });
});

describe('config/resolve at a time', () => {
  beforeEach(async () => {
    await setConfig(
      { store },
      {
        organizationId: org,
        userIds: ['quiet', 'snoozed', 'digest', 'plain', 'muted'],
        config: { inbox: 'ALL', email: 'ALL', slack: 'ALL' },
      },
      'ak',
    );
    await setConfig(
      { store },
      { organizationId: org, userIds: ['muted'], documentIds: ['doc-1'], config: { email: 'NONE' } },
      'ak',
    );
    await set(['quiet', 'muted'], BERLIN_NIGHTS);
    await set(['snoozed'], { timeZone: 'UTC', snoozeUntil: '2026-11-24T09:00:00Z' });
    await set(['digest'], {
      timeZone: 'America/New_York',
      digest: { channels: ['email'], cadence: 'weekly', day: 'fri', at: '08:00' },
    });
  });

  test('each user and channel decided by the rules, sendNow and deferred in the order of userIds, recipients as before', async () => {
    const users = ['plain', 'quiet', 'snoozed', 'digest', 'muted'];
    const result = await resolve(users, { at: '2026-11-23T22:30:00Z' });
    const email = Object.fromEntries(users.map((u) => [u, result.users[u]?.decision?.email]));
    expect(email).toEqual({
      plain: { action: 'send', reason: 'preference' },
      quiet: { action: 'defer', deliverAt: '2026-11-24T06:00:00.000Z', reason: 'quiet_hours' },
      snoozed: { action: 'defer', deliverAt: '2026-11-24T09:00:00.000Z', reason: 'snoozed' },
      // Friday 08:00 in New York (EST, UTC-5).
      digest: { action: 'digest', deliverAt: '2026-11-27T13:00:00.000Z', reason: 'digest' },
      muted: { action: 'suppress', reason: 'preference' },
    });
    expect(result.users.snoozed?.decision?.inbox).toEqual({ action: 'send', reason: 'preference' });
    expect(result.sendNow).toEqual({
      inbox: ['plain', 'quiet', 'snoozed', 'digest', 'muted'],
      email: ['plain'],
      slack: ['plain', 'digest'],
    });
    expect(result.deferred?.email).toEqual([
      { userId: 'quiet', action: 'defer', deliverAt: '2026-11-24T06:00:00.000Z' },
      { userId: 'snoozed', action: 'defer', deliverAt: '2026-11-24T09:00:00.000Z' },
      { userId: 'digest', action: 'digest', deliverAt: '2026-11-27T13:00:00.000Z' },
    ]);
    expect(result.recipients?.email).toEqual(['plain', 'quiet', 'snoozed', 'digest']);
  });

  test('urgent sends whatever the preference allows, never a NONE', async () => {
    const result = await resolve(['quiet', 'snoozed', 'digest', 'muted'], {
      at: '2026-11-23T22:30:00Z',
      priority: 'urgent',
    });
    expect(result.sendNow?.email).toEqual(['quiet', 'snoozed', 'digest']);
    expect(result.users.muted?.decision?.email).toEqual({ action: 'suppress', reason: 'preference' });
    expect(result.deferred).toEqual({ inbox: [], email: [], slack: [] });
  });

  test('at defaults to the request time; the same request at the same time gives the same answer', async () => {
    const byDefault = await resolve(['quiet']);
    expect(byDefault.users.quiet?.decision?.email).toEqual({ action: 'send', reason: 'preference' });
    const again = await resolve(['quiet'], { at: NOW.toISOString() });
    expect(again).toEqual(byDefault);
  });

  test('without an activity, no decision, no sendNow, no deferred: the answer of before', async () => {
    const result = await resolveConfig(
      { store, defaults: BUILT_IN_DEFAULTS, now },
      { organizationId: org, documentId: 'doc-1', userIds: ['quiet'], at: '2026-11-23T22:30:00Z' },
    );
    expect(result.users.quiet).not.toHaveProperty('decision');
    expect(result).not.toHaveProperty('sendNow');
    expect(result).not.toHaveProperty('deferred');
  });
});
