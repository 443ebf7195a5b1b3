import { beforeEach, describe, expect, test } from '@jest/globals';
import { erasureJob } from '#shared/erasure/kind.js';
import type { ErasureRecord } from '#shared/erasure/model.js';
import type { EraseRequest } from '#shared/erasure/routes/erase-user.js';
import { type ErasureWorkerDeps, runErasure } from '#shared/erasure/worker.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import type { Delivery } from '#shared/jobs/delivery-policy.js';
import type { JobQueue } from '#shared/jobs/queue.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { type StartDeps, startJob } from '#shared/jobs/start.js';
import { DEFAULT_STALL_LIMIT_MS } from '#shared/jobs/stuck-policy.js';
import { sweepJobs } from '#shared/jobs/sweep.js';
import { migrationJob } from '#shared/migration/kind.js';
import { DynamoErasureEntryStore } from '#shared/preferences/dynamo-erasure-entries.js';
import { DynamoScheduleStore } from '#shared/preferences/dynamo-schedule-store.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import type { EntryKey } from '#shared/preferences/model.js';
import { useTestDynamo } from '../support/dynamo.js';
import { CrashError, later, Process, TEST_API_KEY } from './migration-fixtures.js';

const dynamo = useTestDynamo({ tables: 'own', freshTablesPerTest: true });
let store: DynamoPreferenceStore;
let schedules: DynamoScheduleStore;
let erasureEntries: DynamoErasureEntryStore;
type ErasureRepository = DynamoJobRepository<ErasureRecord, EraseRequest>;
let repository: ErasureRepository;
let history: DynamoHistoryStore;
let queue: MemoryQueue;

class MemoryQueue implements JobQueue {
  readonly sent: string[] = [];
  async send(erasureId: string): Promise<void> {
    this.sent.push(erasureId);
  }
}

beforeEach(async () => {
  store = new DynamoPreferenceStore(dynamo.doc, dynamo.tables.config);
  schedules = new DynamoScheduleStore(dynamo.doc, dynamo.tables.config);
  erasureEntries = new DynamoErasureEntryStore(dynamo.doc, dynamo.tables.config);
  repository = new DynamoJobRepository(erasureJob, dynamo.doc, dynamo.tables.migrations);
  history = new DynamoHistoryStore(dynamo.doc, dynamo.tables.history);
  queue = new MemoryQueue();
});

const ORG = 'org#1';
/** Starts an erasure as its route does, with the test API key. */
const startErasure = (deps: StartDeps<ErasureRecord>, request: EraseRequest) =>
  startJob(erasureJob, deps, request, TEST_API_KEY);
const meta = { updatedAt: '2026-01-01T00:00:00.000Z', updatedBy: 'ak_1' };
const deps = (overrides: Partial<ErasureWorkerDeps> = {}): ErasureWorkerDeps => ({
  entries: erasureEntries,
  history,
  repository,
  queue,
  pageSize: 3,
  ...overrides,
});
const deliver = (erasureId: string, overrides: Partial<ErasureWorkerDeps> = {}, delivery: Partial<Delivery> = {}) =>
  runErasure(deps(overrides), erasureId, { receiveCount: 1, maxReceiveCount: 5, ...delivery });

const key = (userId: string, documentId: string | null, organizationId = ORG): EntryKey => ({
  organizationId,
  userId,
  documentId,
});

/** alice: 7 documents, the organization level and a tombstone; bob and another organization's alice too. */
const seed = async () => {
  const alice = [...Array.from({ length: 7 }, (_, i) => key('alice', `doc-${i}`)), key('alice', null)];
  for (const entry of alice) await store.setChannels(entry, { inbox: 'NONE' }, meta);
  await store.setChannels(key('alice', 'gone'), { email: 'ALL' }, meta);
  await store.resetChannels(key('alice', 'gone'), ['email'], { ...meta, updatedAt: '2026-01-02T00:00:00.000Z' });
  const others = [key('bob', 'doc-0'), key('bob', null), key('alice', 'doc-0', 'org#2')];
  for (const entry of others) await store.setChannels(entry, { slack: 'ALL' }, meta);
  // History of alice in the organization, and of others.
  let sequence = 0;
  for (const entry of [...alice, ...others]) {
    sequence += 1;
    await history.recordAll([
      {
        recorded: {
          sequenceNumber: String(sequence),
          change: {
            changeId: `c${sequence}`,
            ...entry,
            scope: entry.documentId === null ? 'organization' : 'document',
            category: null,
            cause: 'set',
            changedAt: meta.updatedAt,
            changedBy: 'ak_1',
            evidence: { via: 'api' },
            before: {},
            after: { inbox: 'NONE' },
          },
        },
        expiresAt: 2_000_000_000,
      },
    ]);
  }
  return { alice, others };
};

const remaining = async (keys: EntryKey[]) => (await erasureEntries.getMarkedEntries(keys)).length;
const historyOf = async (organizationId: string, userId: string) =>
  (await history.list({ organizationId, userId, limit: 100 })).changes.length;

describe('erasing a user in an organization', () => {
  test("every entry of the user goes, then the user's history there; nothing else is touched", async () => {
    const { alice, others } = await seed();
    const { erasureId } = await startErasure({ repository, queue }, { organizationId: ORG, userId: 'alice' });
    expect(queue.sent).toEqual([erasureId]);
    expect(await deliver(erasureId)).toBe('completed');

    expect(await remaining([...alice, key('alice', 'gone')])).toBe(0);
    expect(await remaining(others)).toBe(others.length);
    const record = await repository.get(erasureId);
    // The tombstone is deleted too, but was no stored config: 8 erased.
    expect(record).toMatchObject({ status: 'completed', erased: 8, completedAt: expect.any(String) });
    expect(record?.expiresAt).toBe(Math.floor(Date.parse(record?.completedAt ?? '') / 1000) + 30 * 24 * 3600);
    expect(await historyOf(ORG, 'alice')).toBe(0);
    expect(await historyOf(ORG, 'bob')).toBe(2);
    expect(await historyOf('org#2', 'alice')).toBe(1);
    expect(await repository.getLock(ORG, 'alice')).toBeUndefined();
    // A redelivered message finds it finished.
    expect(await deliver(erasureId)).toBe('ignored');
  });

  test("the user's schedule and category layers go with the erasure; another user's schedule stays", async () => {
    const schedule = {
      timeZone: 'Europe/Berlin',
      quietHours: [{ days: ['mon' as const], start: '22:00', end: '07:00', channels: ['email' as const] }],
    };
    await schedules.setSchedule(key('carl', null), schedule, meta);
    await store.setChannels(key('carl', 'doc-1'), { email: 'NONE' }, { ...meta, category: 'comment' });
    await schedules.setSchedule(key('dina', null), schedule, meta);
    const { erasureId } = await startErasure({ repository, queue }, { organizationId: ORG, userId: 'carl' });
    expect(await deliver(erasureId)).toBe('completed');
    expect(await repository.get(erasureId)).toMatchObject({ erased: 2 });
    expect(await remaining([key('carl', null), key('carl', 'doc-1')])).toBe(0);
    expect((await store.getEntries([key('dina', null)]))[0]?.schedule).toEqual(schedule);
  });

  test('a repeat while it is active answers the same id; once finished, a new erasure starts', async () => {
    const first = await startErasure({ repository, queue }, { organizationId: ORG, userId: 'alice' });
    expect(await startErasure({ repository, queue }, { organizationId: ORG, userId: 'alice' })).toEqual(first);
    expect(queue.sent).toEqual([first.erasureId]);
    expect(await deliver(first.erasureId)).toBe('completed');
    const second = await startErasure({ repository, queue }, { organizationId: ORG, userId: 'alice' });
    expect(second.erasureId).not.toBe(first.erasureId);
  });

  test.each([
    ['in the middle of the stamps', { method: 'stampForDelete', call: 2 }],
    ['after the page count was saved', { method: 'saveProgress', call: 2, after: true }],
    // A page's deletes are one call (PartiQL batches of 25 inside).
    ['before the deletes', { method: 'deleteEntriesIf', call: 1 }],
    ['after the deletes took effect', { method: 'deleteEntriesIf', call: 1, after: true }],
    ['before the history goes', { method: 'deleteUserHistory', call: 1 }],
    ['before completing', { method: 'complete', call: 1 }],
  ])('a crash %s, then a redelivery: the same end and the same count', async (_name, plan) => {
    const { alice } = await seed();
    const { erasureId } = await startErasure({ repository, queue }, { organizationId: ORG, userId: 'alice' });
    const crashing = new Process(plan);
    await expect(
      deliver(erasureId, {
        entries: crashing.wrap(erasureEntries),
        repository: crashing.wrap(repository),
        history: crashing.wrap(history),
      }),
    ).rejects.toThrow(CrashError);
    // The lease of the crashed run has expired by the redelivery.
    expect(await deliver(erasureId, { now: later })).toBe('completed');
    expect(await remaining(alice)).toBe(0);
    expect((await repository.get(erasureId))?.erased).toBe(8);
    expect(await historyOf(ORG, 'alice')).toBe(0);
  });

  test('a write during the erasure is erased too, and counted once', async () => {
    await seed();
    const { erasureId } = await startErasure({ repository, queue }, { organizationId: ORG, userId: 'alice' });
    let wrote = false;
    // Right after the first page is stamped, alice writes to one of its entries: its delete is refused.
    const racing = new Proxy(erasureEntries, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver);
        if (property !== 'deleteEntriesIf') return value;
        return async (...args: Parameters<typeof target.deleteEntriesIf>) => {
          const documentEntry = args[0].find((entry) => entry.documentId !== null);
          if (!wrote && documentEntry) {
            wrote = true;
            await store.setChannels(
              documentEntry,
              { slack: 'MINE' },
              { ...meta, updatedAt: '2026-01-03T00:00:00.000Z' },
            );
          }
          return value.apply(target, args);
        };
      },
    });
    expect(await deliver(erasureId, { entries: racing })).toBe('completed');
    expect(wrote).toBe(true);
    expect((await repository.get(erasureId))?.erased).toBe(8);
    expect(await remaining(Array.from({ length: 7 }, (_, i) => key('alice', `doc-${i}`)))).toBe(0);
  });

  test('on the last attempt an error fails the erasure and frees the user for a new one', async () => {
    await seed();
    const { erasureId } = await startErasure({ repository, queue }, { organizationId: ORG, userId: 'alice' });
    const broken = new Process({ method: 'deleteUserHistory', call: 1 });
    await expect(
      deliver(erasureId, { history: broken.wrap(history) }, { receiveCount: 5, maxReceiveCount: 5 }),
    ).rejects.toThrow(CrashError);
    expect(await repository.get(erasureId)).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('5 attempts'),
    });
    expect(await repository.getLock(ORG, 'alice')).toBeUndefined();
  });
});

describe('the end of an erasure, interrupted', () => {
  test("the SDK's retry meets the run's own completion: the run completes and frees the user", async () => {
    await seed();
    const { erasureId } = await startErasure({ repository, queue }, { organizationId: ORG, userId: 'alice' });
    // The first completion takes effect but its answer is lost; the SDK sends it again.
    const lateAnswer: ErasureRepository = Object.create(repository);
    lateAnswer.complete = async (id, owner, at) => {
      await repository.complete(id, owner, at);
      return repository.complete(id, owner, at);
    };
    expect(await deliver(erasureId, { repository: lateAnswer })).toBe('completed');
    expect(await repository.get(erasureId)).toMatchObject({ status: 'completed' });
    expect(await repository.getLock(ORG, 'alice')).toBeUndefined();
  });

  test("a page saved but answered late: the SDK's retry succeeds and the page's count is added once", async () => {
    const { erasureId } = await startErasure({ repository, queue }, { organizationId: ORG, userId: 'alice' });
    await repository.acquireLease(erasureId, 'run-a', Date.now() + 20_000, new Date());
    const page = { counts: { erased: 4 }, run: 'run-a', page: 1, leaseUntil: Date.now() + 20_000, at: meta.updatedAt };
    expect(await repository.saveProgress(erasureId, 'run-a', page)).toBe(true);
    expect(await repository.saveProgress(erasureId, 'run-a', page)).toBe(true);
    expect(await repository.get(erasureId)).toMatchObject({ erased: 4 });
  });

  test('a crash after completion, before the lock is released: the next message frees the user', async () => {
    await seed();
    const { erasureId } = await startErasure({ repository, queue }, { organizationId: ORG, userId: 'alice' });
    const crashing = new Process({ method: 'releaseLocks', call: 1 });
    await expect(deliver(erasureId, { repository: crashing.wrap(repository) })).rejects.toThrow(CrashError);
    expect(await repository.get(erasureId)).toMatchObject({ status: 'completed' });
    expect(await repository.getLock(ORG, 'alice')).toBeDefined();

    expect(await deliver(erasureId, { now: later })).toBe('ignored');
    expect(await repository.getLock(ORG, 'alice')).toBeUndefined();
  });
});

describe('an erasure whose message was lost (the sweeper, shared/jobs/sweep.ts)', () => {
  const LIMIT_MINUTES = DEFAULT_STALL_LIMIT_MS / 60_000;
  const T = Date.now();
  const clock = (minutes: number) => () => new Date(T + minutes * 60_000);
  const sweep = (minutes: number) => sweepJobs(erasureJob, { repository, queue, now: clock(minutes) });

  test('is re-queued once quiet for the stall limit, then completes and frees the user', async () => {
    const { alice } = await seed();
    const { erasureId } = await startErasure({ repository, queue }, { organizationId: ORG, userId: 'alice' });
    // Its message vanished: nothing runs it.
    expect(await sweep(LIMIT_MINUTES - 1)).toMatchObject({ kind: 'erasure', candidates: 0 });
    expect(await sweep(LIMIT_MINUTES + 1)).toMatchObject({ candidates: 1, resumed: [erasureId], failed: [] });
    expect(queue.sent).toEqual([erasureId, erasureId]);
    expect(await repository.get(erasureId)).toMatchObject({ status: 'pending', sweepResumes: 1 });

    expect(await deliver(erasureId, { now: clock(LIMIT_MINUTES + 2) })).toBe('completed');
    expect(await remaining(alice)).toBe(0);
    expect(await repository.getLock(ORG, 'alice')).toBeUndefined();
    // Out of the index of active jobs: no later sweep sees it.
    expect(await sweep(10 * LIMIT_MINUTES)).toMatchObject({ candidates: 0 });
  });

  test('never queued (its request died first): failed as abandoned, and the user is free for a new one', async () => {
    const process = new Process({ method: 'send', call: 1 });
    await expect(
      startErasure(
        { repository: process.wrap(repository), queue: process.wrap(queue) },
        { organizationId: ORG, userId: 'alice' },
      ),
    ).rejects.toThrow();
    expect(await repository.getLock(ORG, 'alice')).toBeDefined();

    const { failed } = await sweep(LIMIT_MINUTES + 1);
    expect(failed).toHaveLength(1);
    expect(await repository.get(failed[0] as string)).toMatchObject({
      status: 'failed',
      error: 'The erasure could not be queued; start it again.',
      expiresAt: expect.any(Number),
    });
    expect(await repository.getLock(ORG, 'alice')).toBeUndefined();
    expect(queue.sent).toEqual([]);
  });

  test('migrations and erasures are swept apart: each kind finds only its own jobs', async () => {
    const { erasureId } = await startErasure({ repository, queue }, { organizationId: ORG, userId: 'alice' });
    const migrations = new DynamoJobRepository(migrationJob, dynamo.doc, repository.tableName);
    expect(
      await sweepJobs(migrationJob, { repository: migrations, queue, now: clock(LIMIT_MINUTES + 1) }),
    ).toMatchObject({ kind: 'migration', candidates: 0 });
    expect(await sweep(LIMIT_MINUTES + 1)).toMatchObject({ candidates: 1, resumed: [erasureId] });
  });
});
