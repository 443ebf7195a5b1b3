import { describe, expect, test } from '@jest/globals';
import { jobMessage } from '#shared/jobs/queue.js';
import { completeUpdate, type FailGuard, failUpdate, saveProgressUpdate } from '#shared/jobs/record-updates.js';
import { isCounted } from '#shared/jobs/step.js';
import { abandonedReason, failedAfter, notQueued, stalledReason, titleOf } from '#shared/jobs/wording.js';

// The job engine's pure parts, for any kind (test/integration/job-engine.test.ts runs the rest).

const widget = { name: 'widget', wording: { unfinished: 'start it again to finish.' } };

describe('a queue message', () => {
  const message = jobMessage({ idAttribute: 'widgetId' });
  test.each([
    ['the id under the kind’s name', { widgetId: 'w-1' }, 'w-1'],
    ['another kind’s id', { erasureId: 'w-1' }, undefined],
    ['an extra key', { widgetId: 'w-1', x: 1 }, undefined],
    ['an empty id', { widgetId: '' }, undefined],
  ])('%s', (_name, body, id) => {
    const parsed = message.safeParse(body);
    expect(parsed.success ? parsed.data : undefined).toBe(id);
  });
});

test('a marker is counted once its run saved its page, never before', () => {
  const saved = { 'run-a': 2 };
  expect(isCounted(saved, { run: 'run-a', page: 2 })).toBe(true);
  expect(isCounted(saved, { run: 'run-a', page: 3 })).toBe(false);
  expect(isCounted(saved, { run: 'run-b', page: 1 })).toBe(false);
});

test('a page adds each counter and sets the page fields once, under its lease, and clears the sweeper’s count', () => {
  const update = saveProgressUpdate('owner', {
    counts: { done: 2, late: 0 },
    fields: { cursor: ['x'] },
    run: 'run-a',
    page: 3,
    leaseUntil: 10,
    at: '2026-01-01T00:00:00.000Z',
  });
  expect(update.UpdateExpression).toBe(
    'ADD #count0 :count0, #count1 :count1 SET #runs.#run = :page, #field0 = :field0, leaseUntil = :until, updatedAt = :at REMOVE sweepResumes, sweptAt',
  );
  expect(update.ConditionExpression).toBe(
    'leaseOwner = :owner AND #status = :inProgress AND (attribute_not_exists(#runs.#run) OR #runs.#run < :page)',
  );
  expect(update.ExpressionAttributeNames).toMatchObject({ '#count0': 'done', '#count1': 'late', '#field0': 'cursor' });
  expect(update.ExpressionAttributeValues).toMatchObject({ ':count0': 2, ':count1': 0, ':field0': ['x'], ':page': 3 });
});

describe('a job that ends drops its page fields, which may hold user ids (a migration’s skipped checkpoint)', () => {
  const kind = {
    ...widget,
    idAttribute: 'widgetId',
    pageFields: { checkpoint: [], cursor: null },
    finished: (at: string) => ({ finishedAt: at }),
  } as unknown as Parameters<typeof completeUpdate>[0];
  const removed = (update: { UpdateExpression?: string; ExpressionAttributeNames?: Record<string, string> }) => {
    const remove = update.UpdateExpression?.split(' REMOVE ')[1]?.split(', ') ?? [];
    return remove.map((part) => update.ExpressionAttributeNames?.[part] ?? part);
  };

  test('completed', () => {
    expect(removed(completeUpdate(kind, 'owner', '2026-01-01T00:00:00.000Z'))).toEqual(
      expect.arrayContaining(['checkpoint', 'cursor']),
    );
  });

  test.each<[string, FailGuard]>([
    ['failed by its last attempt (or the sweeper)', { owner: 'run-a' }],
    ['failed by the sweeper, on the record as read', { owner: 'sweeper', updatedAt: '2026-01-01T00:00:00.000Z' }],
    ['failed as never queued (its start failed, or it was abandoned)', { onlyIfUnqueued: true }],
    ['failed by an operator, even while leased', { evenIfLeased: true }],
  ])('%s', (_name, guard) => {
    const update = failUpdate(kind, 'why', new Date('2026-01-01T00:00:00.000Z'), guard);
    expect(removed(update)).toEqual(expect.arrayContaining(['checkpoint', 'cursor', 'leaseOwner', 'leaseUntil']));
    expect(update.UpdateExpression).toMatch(/^SET #status = :failed, /);
  });
});

test('the engine’s sentences name the kind and end with its own words', () => {
  expect(titleOf(widget)).toBe('Widget');
  expect(notQueued(widget)).toBe('The widget could not be queued.');
  expect(abandonedReason(widget)).toBe('The widget could not be queued; start it again.');
  expect(failedAfter(widget, 5, 'TimeoutError')).toBe(
    'The widget failed after 5 attempts (TimeoutError); start it again to finish.',
  );
  expect(stalledReason(widget, 90 * 60_000, 3)).toBe(
    'The widget made no progress for 90 minutes (re-queued 3 times); start it again to finish.',
  );
  expect(stalledReason(widget, 61_000, 1)).toContain('for 61 seconds');
});
