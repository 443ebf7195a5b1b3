import type { RouteFuzzSpec } from './bad-requests.js';

/** The preference routes (config and schedule), in the order of ROUTES. */
export const PREFERENCE_ROUTE_SPECS: RouteFuzzSpec[] = [
  {
    name: 'setConfig',
    path: '/v2/notifications/config/set',
    valid: {
      organizationId: 'org-1',
      userIds: ['u1', 'u2'],
      documentIds: ['d1'],
      config: { inbox: 'ALL', email: 'NONE' },
      category: 'comment',
    },
    required: ['organizationId', 'userIds', 'config'],
    extraMutations: [
      (d) => {
        d.category = 'Comment';
      },
      (d) => {
        d.category = '__proto__';
      },
      (d) => {
        d.category = 'c'.repeat(65);
      },
      // A consent stated wrongly (docs/api.md, Consent evidence).
      (d) => {
        d.consent = { source: 'settings', color: 'blue' };
      },
      (d) => {
        d.consent = { source: 'settings', capturedAt: '2999-01-01T00:00:00Z' };
      },
      (d) => {
        d.consent = { source: 'settings', capturedAt: '2000-01-01T00:00:00Z' };
      },
      (d) => {
        d.consent = { source: 'settings', ipAddress: '999.1.1.1' };
      },
      (d) => {
        d.consent = { source: 'settings', text: 't'.repeat(5_001) };
      },
      (d) => {
        d.consent = 'yes';
      },
      (d) => {
        d.config = {};
      },
      (d) => {
        d.config = { inbox: 'SOME' };
      },
      (d) => {
        d.userIds = Array.from({ length: 1001 }, (_, i) => `u${i}`);
      },
      (d) => {
        d.documentIds = Array.from({ length: 31 }, (_, i) => `d${i}`);
      },
    ],
  },
  {
    name: 'getConfig',
    path: '/v2/notifications/config/get',
    valid: { organizationId: 'org-1', userId: 'u1', documentIds: ['d1'], category: 'mention', explain: true },
    required: ['organizationId', 'userId'],
    accepted: { explain: [true] },
    extraMutations: [
      (d) => {
        d.category = 'Comment';
      },
      (d) => {
        d.category = '__proto__';
      },
      (d) => {
        d.category = 'c'.repeat(65);
      },
      (d) => {
        d.explain = 'yes';
      },
      (d) => {
        d.userId = ['u1'];
      },
    ],
  },
  {
    name: 'setSchedule',
    path: '/v2/notifications/schedule/set',
    valid: {
      organizationId: 'org-1',
      userIds: ['u1'],
      schedule: {
        timeZone: 'Europe/Berlin',
        quietHours: [{ days: ['mon'], start: '22:00', end: '07:00' }],
        digest: { channels: ['email'], cadence: 'weekly', at: '08:00', day: 'fri' },
      },
    },
    required: ['organizationId', 'userIds', 'schedule'],
    // null removes a schedule: a valid value.
    accepted: { schedule: [null] },
    extraMutations: [
      (d) => {
        d.schedule = { timeZone: 'Mars/Olympus' };
      },
      (d) => {
        d.schedule = { timeZone: 'UTC', quietHours: [{ days: ['mon'], start: '24:00', end: '07:00' }] };
      },
      (d) => {
        d.schedule = { timeZone: 'UTC', quietHours: [{ days: ['mon'], start: '7:5', end: '08:00' }] };
      },
      (d) => {
        d.schedule = { timeZone: 'UTC', quietHours: [{ days: ['mon'], start: '08:00', end: '08:00' }] };
      },
      (d) => {
        d.schedule = { timeZone: 'UTC', quietHours: [{ days: ['mon', 'mon'], start: '08:00', end: '09:00' }] };
      },
      (d) => {
        d.schedule = {
          timeZone: 'UTC',
          quietHours: Array.from({ length: 8 }, () => ({ days: ['mon'], start: '08:00', end: '09:00' })),
        };
      },
      (d) => {
        d.schedule = { timeZone: 'UTC', digest: { channels: ['email'], cadence: 'weekly', at: '08:00' } };
      },
      (d) => {
        d.schedule = { timeZone: 'UTC', digest: { channels: ['email'], cadence: 'daily', at: '08:00', day: 'mon' } };
      },
      (d) => {
        d.schedule = { timeZone: 'UTC', snoozeUntil: '2099-01-01T00:00:00Z' };
      },
      (d) => {
        d.schedule = { timeZone: 'UTC', snoozeUntil: 'tomorrow' };
      },
      (d) => {
        d.schedule = {
          timeZone: 'UTC',
          quietHours: [
            { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '00:00', end: '23:59' },
            { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '23:59', end: '00:00' },
          ],
        };
      },
    ],
  },
  {
    name: 'getSchedule',
    path: '/v2/notifications/schedule/get',
    valid: { organizationId: 'org-1', userId: 'u1' },
    required: ['organizationId', 'userId'],
  },
  {
    name: 'resolveConfig',
    path: '/v2/notifications/config/resolve',
    // activity stays out of `valid`: {}, which breaks every other field, is a valid activity.
    valid: {
      organizationId: 'org-1',
      documentId: 'd1',
      userIds: ['u1', 'u2'],
      category: 'share',
      at: '2026-03-29T00:30:00Z',
      priority: 'urgent',
    },
    required: ['organizationId', 'documentId', 'userIds'],
    extraMutations: [
      (d) => {
        d.at = '2026-03-29 00:30';
      },
      (d) => {
        d.at = 'now';
      },
      (d) => {
        d.priority = 'high';
      },
      (d) => {
        d.category = 'Comment';
      },
      (d) => {
        d.category = '__proto__';
      },
      (d) => {
        d.category = 'c'.repeat(65);
      },
      (d) => {
        d.activity = [];
      },
      (d) => {
        d.activity = { involvedUserIds: 'u2' };
      },
      (d) => {
        d.activity = { involvedUserIds: Array.from({ length: 1001 }, (_, i) => `u${i}`) };
      },
      (d) => {
        d.activity = { mentioned: ['u2'] };
      },
    ],
  },
  {
    name: 'resetConfig',
    path: '/v2/notifications/config/reset',
    valid: { organizationId: 'org-1', userIds: ['u1'], documentIds: ['d1'], channels: ['inbox'], category: 'x.y' },
    required: ['organizationId', 'userIds'],
    extraMutations: [
      (d) => {
        d.category = 'Comment';
      },
      (d) => {
        d.category = '__proto__';
      },
      (d) => {
        d.category = 'c'.repeat(65);
      },
      (d) => {
        d.channels = [];
      },
      (d) => {
        d.channels = ['inbox', 'inbox'];
      },
      (d) => {
        d.channels = ['sms'];
      },
    ],
  },
  {
    name: 'getConfigHistory',
    path: '/v2/notifications/config/history',
    // documentId and limit stay out of `valid`: null and 42, which break every other field, are valid there.
    valid: { organizationId: 'org-1', userId: 'u1' },
    required: ['organizationId', 'userId'],
    extraMutations: [
      (d) => {
        d.documentId = '';
      },
      (d) => {
        d.category = 'Comment';
      },
      (d) => {
        d.category = 7;
      },
      (d) => {
        d.documentId = ['d1'];
      },
      (d) => {
        d.limit = 0;
      },
      (d) => {
        d.limit = 101;
      },
      (d) => {
        d.limit = 1.5;
      },
      // Cursors a forger makes: the fuzz of cursors (fuzz-cursors.test.ts) goes deeper.
      (d) => {
        d.cursor = Buffer.from(JSON.stringify({ pk: 'H#org-1#u1', sk: '' })).toString('base64url');
      },
      (d) => {
        d.cursor = 'x'.repeat(9000);
      },
      (d) => {
        d.cursor = '!!not base64!!';
      },
    ],
  },
];
