import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { erasureJob } from '#shared/erasure/kind.js';
import type { ErasureRecord } from '#shared/erasure/model.js';
import type { EraseRequest } from '#shared/erasure/routes/erase-user.js';
import { runErasure } from '#shared/erasure/worker.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { startJob } from '#shared/jobs/start.js';
import { migrationJob } from '#shared/migration/kind.js';
import { runMigration } from '#shared/migration/worker.js';
import type { ChannelConfig } from '#shared/preferences/model.js';
import type { ErasureEntryStore } from '#shared/preferences/store.js';
import { useTestDynamo } from '../support/dynamo.js';
import {
  at,
  type Harness,
  harness,
  MemoryQueue,
  type MigrationRepository,
  TEST_API_KEY,
} from './migration-fixtures.js';

// A migration and an erasure of one of the migrated document's users, interleaved step by step:
// each one stopped before and after each of its storage calls while the other runs from start to
// end. Whatever the interleaving, nothing of the erased user is left in the organization once
// both have ended (contract section 10: a migration running at the same time never writes the
// user's entries back), and every other user is moved. Deterministic: one write at a time, pages
// of two entries, against DynamoDB Local.

// Tables of its own: the end state is read with scans of whole tables.
const dynamo = useTestDynamo({ tables: 'own' });
let h: Harness;
let history: DynamoHistoryStore;
let erasures: DynamoJobRepository<ErasureRecord, EraseRequest>;
let migrations: MigrationRepository;
const queue = new MemoryQueue();

beforeAll(() => {
  h = harness(dynamo);
  history = new DynamoHistoryStore(dynamo.doc, dynamo.tables.history);
  erasures = new DynamoJobRepository(erasureJob, dynamo.doc, dynamo.tables.migrations);
  migrations = new DynamoJobRepository(migrationJob, dynamo.doc, dynamo.tables.migrations);
});

const SRC = 'doc-src';
const DST = 'doc-dst';
const ERASED = 'carol';
const OTHERS = ['alice', 'bob', 'dave', 'erin'];
const DELIVERY = { receiveCount: 1, maxReceiveCount: 5 };
const configOf = (userId: string): ChannelConfig => ({ inbox: userId === ERASED ? 'NONE' : 'MINE', email: 'ALL' });

/** Where the erased user has entries besides the source: at the target, elsewhere in the organization. */
interface Shape {
  atTarget: boolean;
  elsewhere: boolean;
}

/**
 * One organization per scenario: every user at the source; the erased user also, with
 * `atTarget`, at the target (older, so the migration overwrites it; without, the copy is a new
 * entry) and, with `elsewhere`, at the organization level and on another document.
 */
let scenarios = 0;
const seedOrganization = async ({ atTarget, elsewhere }: Shape): Promise<string> => {
  scenarios += 1;
  const organizationId = `org-${scenarios}`;
  const erased = (documentId: string | null, config: ChannelConfig) => ({
    organizationId,
    userId: ERASED,
    documentId,
    config,
    updatedAt: at(5),
  });
  await h.seed([
    ...[...OTHERS, ERASED].map((userId) => ({
      organizationId,
      userId,
      documentId: SRC,
      config: configOf(userId),
      updatedAt: at(10),
    })),
    ...(atTarget ? [erased(DST, { slack: 'ALL' })] : []),
    ...(elsewhere ? [erased(null, { slack: 'NONE' }), erased('doc-other', { inbox: 'ALL' })] : []),
  ]);
  return organizationId;
};

interface Jobs {
  organizationId: string;
  migrationId: string;
  erasureId: string;
}

const startBoth = async (shape: Shape): Promise<Jobs> => {
  const organizationId = await seedOrganization(shape);
  const { migrationId } = await startJob(
    migrationJob,
    { repository: migrations, queue },
    { organizationId, documentId: SRC, newDocumentId: DST },
    TEST_API_KEY,
  );
  const { erasureId } = await startJob(
    erasureJob,
    { repository: erasures, queue },
    { organizationId, userId: ERASED },
    TEST_API_KEY,
  );
  return { organizationId, migrationId, erasureId };
};

/** Where one run stops for the other: its `call`-th storage call, before it is sent or once it is answered. */
interface Pause {
  call: number;
  when: 'before' | 'after';
}

/**
 * `target` whose `pause.call`-th method call (any method) waits, before or after it runs, for
 * `interlude` to finish; `names` lists the calls made, `users` whose entry each was about, and
 * `paused` tells whether it stopped.
 */
const pausing = <T extends object>(target: T, pause: Pause | undefined, interlude: () => Promise<unknown>) => {
  const names: string[] = [];
  /** The user of each call's first argument, if it has one (a copy's, say). */
  const users: (string | undefined)[] = [];
  const state = { paused: false };
  const wrapped = new Proxy(target, {
    get: (object, property, receiver) => {
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        names.push(String(property));
        users.push((args[0] as { userId?: string } | undefined)?.userId);
        const here = names.length === pause?.call;
        if (here && pause?.when === 'before') {
          state.paused = true;
          await interlude();
        }
        const result = await value.apply(object, args);
        if (here && pause?.when === 'after') {
          state.paused = true;
          await interlude();
        }
        return result;
      };
    },
  });
  return { wrapped, names, users, state };
};

const migrate = (jobs: Jobs, entries = h.store) =>
  runMigration(h.deps({ entries, pageSize: 2, concurrency: 1 }), jobs.migrationId, DELIVERY);
const erase = (jobs: Jobs, entries: ErasureEntryStore = h.erasures) =>
  runErasure({ entries, history, repository: erasures, queue, pageSize: 2 }, jobs.erasureId, DELIVERY);

const itemsOf = async (organizationId: string) =>
  (
    (await dynamo.doc.send(new ScanCommand({ TableName: dynamo.tables.config, ConsistentRead: true }))).Items ?? []
  ).filter((item) => item.organizationId === organizationId);

/** Both jobs ended; the erased user has nothing left; every other user's entry is at the target, with its values. */
const expectOutcome = async (jobs: Jobs) => {
  expect((await migrations.get(jobs.migrationId))?.status).toBe('completed');
  expect((await erasures.get(jobs.erasureId))?.status).toBe('completed');
  const items = await itemsOf(jobs.organizationId);
  expect(items.filter((item) => item.userId === ERASED).map((item) => item.documentId ?? null)).toEqual([]);
  expect(
    items
      .map((item) => [item.userId, item.documentId, item.inbox, item.email])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  ).toEqual(OTHERS.map((userId) => [userId, DST, 'MINE', 'ALL']));
};

/** The storage calls of a run left alone: the same, call by call, up to wherever a later run of it is stopped. */
const callsAlone = async (run: 'migration' | 'erasure', shape: Shape, entries = h.store) => {
  const jobs = await startBoth(shape);
  if (run === 'migration') {
    const { wrapped, names, users } = pausing(entries, undefined, async () => {});
    await migrate(jobs, wrapped);
    await erase(jobs);
    await expectOutcome(jobs);
    return { names, users };
  }
  const { wrapped, names, users } = pausing(h.erasures, undefined, async () => {});
  await erase(jobs, wrapped);
  await migrate(jobs);
  await expectOutcome(jobs);
  return { names, users };
};

const points = (calls: readonly string[]) =>
  calls.flatMap((name, i) => [
    { call: i + 1, when: 'before' as const, name },
    { call: i + 1, when: 'after' as const, name },
  ]);

const SHAPES: [string, Shape][] = [
  ['also at the target and elsewhere', { atTarget: true, elsewhere: true }],
  ['not at the target, elsewhere', { atTarget: false, elsewhere: true }],
  ['only at the source', { atTarget: false, elsewhere: false }],
];

describe.each(SHAPES)(
  'a migration stopped at each of its storage calls while the erasure runs whole (the erased user %s)',
  (_name, shape) => {
    test('every point: the erased user never comes back, every other user is moved', async () => {
      const calls = (await callsAlone('migration', shape)).names;
      expect(calls).toEqual(expect.arrayContaining(['listDocumentEntries', 'getMarkedEntries', 'copyEntryIf']));
      for (const pause of points(calls)) {
        const jobs = await startBoth(shape);
        const { wrapped, state } = pausing(h.store, pause, () => erase(jobs));
        await migrate(jobs, wrapped);
        expect({ ...pause, paused: state.paused }).toEqual({ ...pause, paused: true });
        try {
          await expectOutcome(jobs);
        } catch (error) {
          throw new Error(
            `Migration stopped ${pause.when} call ${pause.call} (${pause.name}): ${(error as Error).message}`,
          );
        }
      }
    }, 240_000);
  },
);

/** The reported case: no entry at the target, so the copy is a new item. */
const REPORTED: Shape = { atTarget: false, elsewhere: true };

test('the race as reported: the page read the source, the erasure ended, then the copy; with a copy that checks only the target (as before), the erased entry came back', async () => {
  // What the migration did before: a put conditioned on the target alone, the source stamped apart.
  const unchecked = new Proxy(h.store, {
    get: (object, property, receiver) =>
      property === 'copyEntryIf'
        ? async (...[copy, expected, source, change]: Parameters<typeof object.copyEntryIf>) => {
            const written = await object.putEntryIf(copy, expected, change);
            if (written) await object.stampForDelete([source], change);
            return written;
          }
        : Reflect.get(object, property, receiver),
  });
  const raceAsReported = async (entries: typeof h.store) => {
    const { names, users } = await callsAlone('migration', REPORTED, entries);
    const copyOfErased = names.findIndex((name, i) => name === 'copyEntryIf' && users[i] === ERASED) + 1;
    expect(copyOfErased).toBeGreaterThan(0);
    const jobs = await startBoth(REPORTED);
    const { wrapped, state } = pausing(entries, { call: copyOfErased, when: 'before' }, () => erase(jobs));
    expect(await migrate(jobs, wrapped)).toBe('completed');
    expect(state.paused).toBe(true);
    expect((await erasures.get(jobs.erasureId))?.status).toBe('completed');
    return (await itemsOf(jobs.organizationId)).filter((item) => item.userId === ERASED);
  };
  // The harness reproduces the race: the unchecked copy writes the erased user's entry back.
  expect((await raceAsReported(unchecked)).map((item) => [item.documentId, item.inbox])).toEqual([[DST, 'NONE']]);
  // The checked copy does not.
  expect(await raceAsReported(h.store)).toEqual([]);
}, 60_000);

describe.each(SHAPES)(
  'an erasure stopped at each of its storage calls while the migration runs whole (the erased user %s)',
  (_name, shape) => {
    test('every point: the erased user never comes back, every other user is moved', async () => {
      const calls = (await callsAlone('erasure', shape)).names;
      expect(calls).toEqual(
        expect.arrayContaining(['listUserEntries', 'getMarkedEntries', 'stampForDelete', 'deleteEntriesIf']),
      );
      for (const pause of points(calls)) {
        const jobs = await startBoth(shape);
        const { wrapped, state } = pausing(h.erasures, pause, () => migrate(jobs));
        await erase(jobs, wrapped);
        expect({ ...pause, paused: state.paused }).toEqual({ ...pause, paused: true });
        try {
          await expectOutcome(jobs);
        } catch (error) {
          throw new Error(
            `Erasure stopped ${pause.when} call ${pause.call} (${pause.name}): ${(error as Error).message}`,
          );
        }
      }
    }, 240_000);
  },
);
