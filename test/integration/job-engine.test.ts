import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, test } from '@jest/globals';
import { ApiError } from '#shared/api/errors.js';
import type { Delivery } from '#shared/jobs/delivery-policy.js';
import type { JobKind } from '#shared/jobs/kind.js';
import type { RunDeps } from '#shared/jobs/pages.js';
import type { JobRecord } from '#shared/jobs/record.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { runJob } from '#shared/jobs/run.js';
import { startJob } from '#shared/jobs/start.js';
import { isCounted, type JobStep, type PageMarker } from '#shared/jobs/step.js';
import { sweepJobs } from '#shared/jobs/sweep.js';
import { getJobView } from '#shared/jobs/view.js';
import { useTestDynamo } from '../support/dynamo.js';
import { CrashError, MemoryQueue, Process } from './migration-fixtures.js';

// The engine's own decisions (shared/jobs/), with a kind of its own that is neither a migration
// nor an erasure: a "widget" locks two things, counts the items it handles, keeps a page field,
// marks its records when they finish and says when it ended. Its step takes two items a page
// from a list, stamps each with the page's marker, and drops them once the page is saved.

interface WidgetRequest {
  organizationId: string;
  from: string;
  to: string;
}
interface WidgetRecord extends JobRecord, WidgetRequest {
  widgetId: string;
  done: number;
  lastPage: number;
  finishedAt?: string;
}
interface WidgetView {
  widgetId: string;
  status: string;
  done: number;
}

const ended: string[] = [];
const widgetJob: JobKind<WidgetRecord, WidgetRequest, WidgetView, 'widgetId'> = {
  name: 'widget',
  idAttribute: 'widgetId',
  keyPrefix: 'WIDGET#',
  activePartition: 'ACTIVE#WIDGET',
  counters: ['done'],
  pageFields: { lastPage: 0 },
  fields: ({ from, to }) => ({ from, to }),
  subjectAttribute: 'thing',
  lockKey: (organizationId, subject) => ({ pk: `WIDGET_LOCK#${organizationId}#${subject}`, sk: 'LOCK' }),
  lockSubjects: ({ from, to }) => [
    { subject: from, role: 'from' },
    { subject: to, role: 'to' },
  ],
  finished: (at) => ({ finishedAt: at }),
  view: (record, abandoned) => ({
    widgetId: record.widgetId,
    status: abandoned ? 'failed' : record.status,
    done: record.done,
  }),
  wording: {
    unfinished: 'some widgets may be done. Start it again to finish.',
    lostLock: 'Another widget job took a thing first.',
    locksBusy: 'The things are changing hands; the request is safe to retry.',
    notFound: 'Widget job not found.',
    conflict: ({ from, to }) => `${from} or ${to} is taken.`,
  },
  ended: (status) => void ended.push(status),
};

interface WidgetDeps extends RunDeps<WidgetRecord> {
  items: string[];
  marks: Map<string, PageMarker>;
  /** What the step answers instead of a page, by call (1-based). */
  script?: Record<number, 'empty' | 'throw'>;
}

const widgetStep: JobStep<WidgetRecord, WidgetDeps> = (deps, { run, savedPages }) => {
  let calls = 0;
  return async (page) => {
    calls += 1;
    const scripted = deps.script?.[calls];
    if (scripted === 'throw') throw new Error('widget jammed');
    if (scripted === 'empty') return { outcome: 'empty' };
    const batch = deps.items.slice(0, 2);
    if (batch.length === 0) return { outcome: 'done' };
    let fresh = 0;
    for (const item of batch) {
      const mark = deps.marks.get(item);
      if (mark && isCounted(savedPages, mark)) continue;
      deps.marks.set(item, { run, page });
      fresh += 1;
    }
    return {
      outcome: 'page',
      counts: { done: fresh },
      fields: { lastPage: page },
      saved: async () => void deps.items.splice(0, batch.length),
    };
  };
};

const ORG = 'org-1';
const KEY = 'ak_widgets';
const dynamo = useTestDynamo({ tables: 'own', freshTablesPerTest: true });
let repository: DynamoJobRepository<WidgetRecord, WidgetRequest>;
let queue: MemoryQueue;

beforeEach(async () => {
  repository = new DynamoJobRepository(widgetJob, dynamo.doc, dynamo.tables.migrations);
  queue = new MemoryQueue();
  ended.length = 0;
});

const start = (from = 'a', to = 'b', now?: () => Date) =>
  startJob(widgetJob, { repository, queue, ...(now ? { now } : {}) }, { organizationId: ORG, from, to }, KEY);

const deps = (items: string[], overrides: Partial<WidgetDeps> = {}): WidgetDeps => ({
  repository,
  queue,
  items,
  marks: new Map(),
  ...overrides,
});
const deliver = (id: string, widgetDeps: WidgetDeps, delivery: Partial<Delivery> = {}) =>
  runJob(widgetJob, widgetStep, widgetDeps, id, { receiveCount: 1, maxReceiveCount: 5, ...delivery });
const later = () => new Date(Date.now() + 10 * 60_000);

/** A start of a -> b whose process dies as it sends the message: its record and locks stay, unqueued; answers its id. */
const stoppedBeforeQueuing = async (): Promise<string> => {
  const dead = new Process({ method: 'send', call: 1 });
  await expect(
    startJob(
      widgetJob,
      { repository: dead.wrap(repository), queue: dead.wrap(queue) },
      { organizationId: ORG, from: 'a', to: 'b' },
      KEY,
    ),
  ).rejects.toThrow();
  return (await repository.getLock(ORG, 'a'))?.jobId as string;
};

describe('start', () => {
  test('records the kind’s fields, counters and page fields, takes each subject’s lock, queues the id', async () => {
    const { widgetId } = await start();
    expect(queue.sent).toEqual([widgetId]);
    expect(await repository.get(widgetId)).toMatchObject({
      widgetId,
      organizationId: ORG,
      from: 'a',
      to: 'b',
      status: 'pending',
      done: 0,
      lastPage: 0,
      runs: {},
      requestedBy: KEY,
      queuedAt: expect.any(String),
    });
    expect(await repository.getLock(ORG, 'a')).toMatchObject({ subject: 'a', role: 'from', jobId: widgetId });
    expect(await repository.getLock(ORG, 'b')).toMatchObject({ subject: 'b', role: 'to', jobId: widgetId });
  });

  test('the same subjects while it is active: the same id, nothing queued again', async () => {
    const first = await start();
    expect(await start()).toEqual(first);
    expect(queue.sent).toEqual([first.widgetId]);
  });

  test('a subject held by an active job of another request: 409 with the kind’s message; the loser gives back what it took', async () => {
    const first = await start('a', 'b');
    const refused = start('c', 'b');
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({
      status: 'ABORTED',
      message: 'c or b is taken.',
      details: { widgetId: first.widgetId },
    });
    expect(await repository.getLock(ORG, 'c')).toBeUndefined();
    expect(await repository.getLock(ORG, 'b')).toMatchObject({ jobId: first.widgetId });
    expect(queue.sent).toEqual([first.widgetId]);
  });

  test('locks of a finished job are taken over', async () => {
    const first = await start();
    expect(await deliver(first.widgetId, deps(['x']))).toBe('completed');
    const second = await start('b', 'a');
    expect(second.widgetId).not.toBe(first.widgetId);
    expect(await repository.getLock(ORG, 'a')).toMatchObject({ jobId: second.widgetId, role: 'to' });
  });

  test('a start that stopped before queuing: repeats within 30 s answer its id and queue nothing (it may still be queuing); after that, of eight repeats at once one finishes it, with one message', async () => {
    const stopped = await stoppedBeforeQueuing();
    expect(await start()).toEqual({ widgetId: stopped });
    expect(queue.sent).toEqual([]);

    const after = () => new Date(Date.now() + 31_000);
    const repeats = await Promise.all(Array.from({ length: 8 }, () => start('a', 'b', after)));
    expect(repeats).toEqual(Array(8).fill({ widgetId: stopped }));
    expect(queue.sent).toEqual([stopped]);
    expect(await repository.get(stopped)).toMatchObject({ status: 'pending', queuedAt: expect.any(String) });
  });

  test('an abandoned holder (never queued, past its time) is failed, then its locks change hands', async () => {
    const abandoned = await stoppedBeforeQueuing();
    expect(await getJobView(widgetJob, { repository, now: later }, ORG, abandoned)).toEqual({
      widgetId: abandoned,
      status: 'failed',
      done: 0,
    });

    const next = await start('a', 'b', later);
    expect(next.widgetId).not.toBe(abandoned);
    expect(await repository.get(abandoned)).toMatchObject({
      status: 'failed',
      error: 'The widget could not be queued.',
      finishedAt: expect.any(String),
    });
    expect(await repository.getLock(ORG, 'b')).toMatchObject({ jobId: next.widgetId });
  });

  test('a message that cannot be queued: 503 naming the id, the record failed, every lock released', async () => {
    const failing = { send: async () => Promise.reject(new Error('queue down')) };
    const answer = startJob(
      widgetJob,
      { repository, queue: failing },
      { organizationId: ORG, from: 'a', to: 'b' },
      KEY,
    );
    await expect(answer).rejects.toMatchObject({
      status: 'UNAVAILABLE',
      message: 'The widget could not be queued; the request is safe to retry.',
    });
    const { details } = (await answer.catch((error: ApiError) => error)) as ApiError;
    const id = (details as { widgetId: string }).widgetId;
    expect(await repository.get(id)).toMatchObject({ status: 'failed', error: 'The widget could not be queued.' });
    expect(await repository.getLock(ORG, 'a')).toBeUndefined();
    expect(await repository.getLock(ORG, 'b')).toBeUndefined();
  });
});

describe('status', () => {
  test('an unknown id and another organization’s id are the same NOT_FOUND, with the kind’s message', async () => {
    const { widgetId } = await start();
    for (const [organizationId, id] of [
      ['org-2', widgetId],
      [ORG, 'nope'],
    ] as const) {
      await expect(getJobView(widgetJob, { repository }, organizationId, id)).rejects.toMatchObject({
        status: 'NOT_FOUND',
        message: 'Widget job not found.',
      });
    }
    expect(await getJobView(widgetJob, { repository }, ORG, widgetId)).toEqual({
      widgetId,
      status: 'pending',
      done: 0,
    });
  });
});

describe('a run', () => {
  test('pages until the step is done: counts added per saved page, page fields kept while it runs and dropped at the end', async () => {
    const { widgetId } = await start();
    const items = ['1', '2', '3', '4', '5'];
    const work = deps(items, { script: { 1: 'empty', 3: 'empty' } });
    expect(await deliver(widgetId, work)).toBe('completed');
    const record = await repository.get(widgetId);
    expect(record).toMatchObject({ status: 'completed', done: 5, finishedAt: record?.completedAt });
    // Three pages saved (an empty read is not a page); lastPage is gone (the kind's default reads back).
    expect(Object.values(record?.runs ?? {})).toEqual([3]);
    expect(record?.lastPage).toBe(0);
    expect(ended).toEqual(['completed']);
    expect(await repository.getLock(ORG, 'a')).toBeUndefined();
    expect(await repository.getLock(ORG, 'b')).toBeUndefined();
  });

  test('a crash after a page was saved, before its own work: the retry counts nothing twice', async () => {
    const { widgetId } = await start();
    const items = ['1', '2', '3', '4', '5'];
    const marks = new Map<string, PageMarker>();
    const crash = new Process({ method: 'saveProgress', call: 2, after: true });
    await expect(deliver(widgetId, deps(items, { marks, repository: crash.wrap(repository) }))).rejects.toBeInstanceOf(
      CrashError,
    );
    // Page 2 is saved (counted) but its items are still there, stamped with its marker.
    expect(await repository.get(widgetId)).toMatchObject({ done: 4, lastPage: 2 });
    expect(items).toEqual(['3', '4', '5']);

    expect(await deliver(widgetId, deps(items, { marks, now: later }))).toBe('completed');
    expect(await repository.get(widgetId)).toMatchObject({ status: 'completed', done: 5 });
  });

  test('near the deadline, after a page: the lease is released and a continuation queued', async () => {
    const { widgetId } = await start();
    const items = ['1', '2', '3', '4'];
    expect(await deliver(widgetId, deps(items), { remainingTimeMs: () => 1_000 })).toBe('continued');
    expect(queue.sent).toEqual([widgetId, widgetId]);
    const record = await repository.get(widgetId);
    expect(record).toMatchObject({ status: 'in_progress', done: 2 });
    expect(record?.leaseOwner).toBeUndefined();
  });

  test('a failure before the last attempt releases the lease only; on the last attempt the job fails in the kind’s words and frees its subjects', async () => {
    const { widgetId } = await start();
    await expect(deliver(widgetId, deps(['1'], { script: { 1: 'throw' } }))).rejects.toThrow('widget jammed');
    expect(await repository.get(widgetId)).toMatchObject({ status: 'in_progress' });
    expect((await repository.get(widgetId))?.leaseOwner).toBeUndefined();
    expect(ended).toEqual([]);

    await expect(
      deliver(widgetId, deps(['1'], { script: { 1: 'throw' } }), { receiveCount: 5, maxReceiveCount: 5 }),
    ).rejects.toThrow('widget jammed');
    expect(await repository.get(widgetId)).toMatchObject({
      status: 'failed',
      error: 'The widget failed after 5 attempts (Error); some widgets may be done. Start it again to finish.',
      finishedAt: expect.any(String),
    });
    expect(ended).toEqual(['failed']);
    expect(await repository.getLock(ORG, 'a')).toBeUndefined();
    // A late duplicate of its message is dropped.
    expect(await deliver(widgetId, deps(['1']))).toBe('ignored');
  });

  test('the last attempt queues a watchdog once its first page is saved', async () => {
    const { widgetId } = await start();
    expect(await deliver(widgetId, deps(['1', '2', '3']), { receiveCount: 5, maxReceiveCount: 5 })).toBe('completed');
    expect(queue.sent).toHaveLength(2);
    expect(queue.delays[1]).toBeGreaterThan(0);
  });
});

test('the sweeper finds a kind’s quiet jobs in its own partition of the index, and fails them in its words', async () => {
  const { widgetId } = await start();
  // Re-queued three times already, the last long ago, and quiet since: failed as stalled.
  const { createdAt } = (await repository.get(widgetId)) as WidgetRecord;
  await dynamo.doc.send(
    new UpdateCommand({
      TableName: repository.tableName,
      Key: { pk: `WIDGET#${widgetId}`, sk: 'RECORD' },
      UpdateExpression: 'SET sweepResumes = :three, sweptAt = :then',
      ExpressionAttributeValues: { ':three': 3, ':then': createdAt },
    }),
  );
  const hoursLater = () => new Date(Date.now() + 3 * 60 * 60_000);
  const report = await sweepJobs(widgetJob, { repository, queue, now: hoursLater });
  expect(report).toMatchObject({ kind: 'widget', candidates: 1, resumed: [], failed: [widgetId] });
  expect((await repository.get(widgetId))?.error).toMatch(
    /^The widget made no progress for \d+ minutes \(re-queued 3 times\); some widgets may be done\. Start it again to finish\.$/,
  );
  expect(ended).toEqual(['failed']);
  expect(await repository.getLock(ORG, 'b')).toBeUndefined();
});
