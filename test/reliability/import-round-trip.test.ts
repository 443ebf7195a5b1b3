import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import pMap from 'p-map';
import { createClient, type NodeServiceClient, type SetScheduleInput } from '#client/node.js';
import { userPartition } from '#shared/history/keys.js';
import type { ChannelConfig } from '#shared/preferences/model.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// Contract 15.2: an export imported into an empty organization reproduces every config/get and
// schedule/get answer; and 15.1: the same file imported again changes nothing and records
// nothing in the history. Through the typed client's Node entry (exportToFile, importFile)
// against the local server, what `npm start` runs. IMPORT_ROUND_TRIP_ENTRIES sets the size (the
// rows of the exported file): a few hundred in `npm test`, 100,000 in `npm run soak`.
const ENTRIES = Number(process.env.IMPORT_ROUND_TRIP_ENTRIES ?? 400);
const SOURCE = 'round-trip-source';
const TARGET = 'round-trip-target';
/** Users a set names at once (the route's limit), and calls under way at once. */
const USERS_PER_CALL = 1000;
const CONCURRENCY = 8;

const DOCUMENTS = Array.from({ length: 20 }, (_, d) => `doc-${d}`);
const CATEGORIES = ['comment', 'mention', 'billing'];
/**
 * The layers a user's rows are on: the organization level and its category layers, then the
 * documents' all-categories and category layers. Some documents have only a category layer (so
 * their entries have no all-categories channels), two have none (config/get answers them empty).
 * Many layers per user keep the users few: comparing the answers costs three calls a user and organization.
 */
const LAYERS: { documentId?: string; category?: string }[] = [
  {},
  ...CATEGORIES.map((category) => ({ category })),
  ...DOCUMENTS.flatMap((documentId, d) => [
    ...(d % 5 === 4 ? [] : [{ documentId }]),
    ...(d % 2 === 0 ? [{ documentId, category: CATEGORIES[d % CATEGORIES.length] as string }] : []),
  ]),
];
/** Every channel with every value, alone and together. */
const CONFIGS: ChannelConfig[] = [
  { inbox: 'ALL' },
  { email: 'NONE' },
  { slack: 'MINE' },
  { inbox: 'MINE', email: 'ALL' },
  { email: 'MINE', slack: 'NONE' },
  { inbox: 'NONE', email: 'NONE', slack: 'ALL' },
  { inbox: 'ALL', slack: 'ALL' },
];
const SCHEDULES: NonNullable<SetScheduleInput['schedule']>[] = [
  { timeZone: 'Europe/Berlin' },
  {
    timeZone: 'America/New_York',
    quietHours: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '22:00', end: '07:00' }],
  },
  {
    timeZone: 'Asia/Tokyo',
    quietHours: [{ days: ['sat', 'sun'], start: '00:00', end: '23:59', channels: ['inbox', 'email', 'slack'] }],
    digest: { channels: ['email'], cadence: 'daily', at: '08:30' },
  },
  { timeZone: 'UTC', digest: { channels: ['email', 'slack'], cadence: 'weekly', at: '09:00', day: 'mon' } },
];

interface SeedUser {
  userId: string;
  /** Indexes into LAYERS. */
  layers: number[];
  /** Index into SCHEDULES. */
  schedule?: number;
}

/**
 * Users whose rows add up to exactly `entries`: each user takes a run of layers (one to all,
 * starting at a different layer, so not every user has the organization level), every third a
 * schedule too, and every seventh only a schedule. A schedule off the organization level's
 * layers is a row of its own.
 */
const seedUsers = (entries: number): SeedUser[] => {
  const users: SeedUser[] = [];
  let rows = 0;
  for (let i = 0; rows < entries; i += 1) {
    const userId = `user-${String(i).padStart(6, '0')}`;
    const left = entries - rows;
    let user: SeedUser;
    if (i % 7 === 6) user = { userId, layers: [], schedule: i % SCHEDULES.length };
    else {
      const start = (i * 7) % LAYERS.length;
      const layers = Array.from({ length: 1 + (i % LAYERS.length) }, (_, k) => (start + k) % LAYERS.length);
      user = { userId, layers, ...(i % 3 === 0 ? { schedule: i % SCHEDULES.length } : {}) };
    }
    // The last user takes what is left: the first layers, without a schedule.
    if (rowsOf(user) > left) user = { userId, layers: LAYERS.map((_, k) => k).slice(0, left) };
    users.push(user);
    rows += rowsOf(user);
  }
  return users;
};
const rowsOf = ({ layers, schedule }: SeedUser) =>
  layers.length + (schedule !== undefined && !layers.includes(0) ? 1 : 0);

/**
 * The users written into `organizationId` through config/set and schedule/set, many users and
 * one layer (or one schedule) a call: the API's own writes, as an organization makes them.
 */
const seed = async (api: NodeServiceClient, organizationId: string, users: SeedUser[]) => {
  const groups = new Map<string, { write: (userIds: string[]) => Promise<unknown>; userIds: string[] }>();
  const add = (key: string, userId: string, write: (userIds: string[]) => Promise<unknown>) => {
    const group = groups.get(key) ?? { write, userIds: [] };
    group.userIds.push(userId);
    groups.set(key, group);
  };
  for (const [index, { userId, layers, schedule }] of users.entries()) {
    for (const layer of layers) {
      const { documentId, category } = LAYERS[layer] as (typeof LAYERS)[number];
      const config = (index + layer) % CONFIGS.length;
      add(`config ${layer} ${config}`, userId, (userIds) =>
        api.setConfig({
          organizationId,
          userIds,
          ...(documentId ? { documentIds: [documentId] } : {}),
          ...(category ? { category } : {}),
          config: CONFIGS[config] as ChannelConfig,
        }),
      );
    }
    if (schedule !== undefined) {
      add(`schedule ${schedule}`, userId, (userIds) =>
        api.setSchedule({ organizationId, userIds, schedule: SCHEDULES[schedule] ?? null }),
      );
    }
  }
  const calls = [...groups.values()].flatMap(({ write, userIds }) =>
    Array.from(
      { length: Math.ceil(userIds.length / USERS_PER_CALL) },
      (_, k) => () => write(userIds.slice(k * USERS_PER_CALL, (k + 1) * USERS_PER_CALL)),
    ),
  );
  await pMap(calls, (call) => call(), { concurrency: CONCURRENCY });
};

/** Every config/get (the organization level, and every document at once) and schedule/get answer of a user. */
const answersOf = async (api: NodeServiceClient, organizationId: string, userId: string) => ({
  documents: await api.getConfig({ organizationId, userId, documentIds: DOCUMENTS }),
  organization: await api.getConfig({ organizationId, userId }),
  schedule: await api.getSchedule({ organizationId, userId }),
});

let service: LocalService;
let api: NodeServiceClient;
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'import-round-trip-'));
  service = await startLocalService();
  api = createClient({ baseUrl: service.baseUrl, apiKey: service.apiKey, token: service.token });
});
afterAll(async () => {
  await service?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/**
 * The organization's history items: a COUNT Query of each user's partition (a filtered Scan of the
 * whole table failed with DynamoDB Local's InternalFailure at 100,000 entries).
 */
const historyCount = async (organizationId: string, users: readonly SeedUser[]) => {
  const counts = await pMap(
    users,
    async ({ userId }) => {
      let count = 0;
      const pages = paginateQuery(
        { client: service.doc },
        {
          TableName: service.tables.history,
          Select: 'COUNT',
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': userPartition(organizationId, userId) },
        },
      );
      for await (const page of pages) count += page.Count ?? 0;
      return count;
    },
    { concurrency: CONCURRENCY },
  );
  return counts.reduce((sum, count) => sum + count, 0);
};

test(
  `an export of ${ENTRIES} entries imported into an empty organization reproduces every config/get and schedule/get answer; the same file again changes nothing`,
  async () => {
    const users = seedUsers(ENTRIES);
    const changes = users.reduce((sum, user) => sum + user.layers.length + (user.schedule === undefined ? 0 : 1), 0);
    const wait = { intervalMs: 200, timeoutMs: 60_000 + ENTRIES * 20 };
    const timings: Record<string, number> = {};
    let started = Date.now();
    const lap = (name: string) => {
      timings[name] = Math.round((Date.now() - started) / 100) / 10;
      started = Date.now();
    };

    await seed(api, SOURCE, users);
    lap('seed');
    const path = join(work, 'source.jsonl');
    const exported = await api.exportToFile({ organizationId: SOURCE, format: 'jsonl' }, path, wait);
    expect(exported).toMatchObject({ status: 'completed', rows: ENTRIES });
    expect((await readFile(path, 'utf8')).trim().split('\n')).toHaveLength(ENTRIES);
    lap('export');

    const imported = await api.importFile({ organizationId: TARGET, format: 'jsonl' }, path, wait);
    expect(imported).toMatchObject({
      status: 'completed',
      rowsRead: ENTRIES,
      rowsApplied: ENTRIES,
      rowsUnchanged: 0,
      rowsRejected: 0,
    });
    lap('import');

    const mismatches: string[] = [];
    await pMap(
      users,
      async ({ userId }) => {
        const [source, target] = await Promise.all([answersOf(api, SOURCE, userId), answersOf(api, TARGET, userId)]);
        if (!isDeepStrictEqual(target, source) && mismatches.length < 10) {
          mismatches.push(`${userId}: source ${JSON.stringify(source)}, target ${JSON.stringify(target)}`);
        }
      },
      { concurrency: CONCURRENCY },
    );
    expect(mismatches).toEqual([]);
    lap('compare');

    // Every applied row's layers are changes in the history, once each.
    await service.streams?.caughtUp();
    lap('stream');
    expect(await historyCount(TARGET, users)).toBe(changes);
    lap('history');

    const again = await api.importFile({ organizationId: TARGET, format: 'jsonl' }, path, wait);
    expect(again).toMatchObject({
      status: 'completed',
      rowsRead: ENTRIES,
      rowsApplied: 0,
      rowsUnchanged: ENTRIES,
      rowsRejected: 0,
    });
    lap('import again');
    await service.streams?.caughtUp();
    expect(await historyCount(TARGET, users)).toBe(changes);
    lap('history again');

    if (process.env.IMPORT_ROUND_TRIP_ENTRIES || process.env.SOAK_REPORT) {
      console.log(
        `import round trip ${JSON.stringify({ entries: ENTRIES, users: users.length, changes, seconds: timings })}`,
      );
    }
  },
  120_000 + ENTRIES * 100,
);
