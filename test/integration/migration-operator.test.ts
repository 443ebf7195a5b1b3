import { describe, expect, test } from '@jest/globals';
import { LeaseLostError } from '#shared/jobs/delivery-policy.js';
import { DEFAULT_STALL_LIMIT_MS, MAX_SWEEP_RESUMES } from '#shared/jobs/stuck-policy.js';
import { sweepJobs } from '#shared/jobs/sweep.js';
import { migrationJob } from '#shared/migration/kind.js';
import {
  failMigration,
  listStuck,
  OPERATOR_FAIL_REASON,
  OperatorRefusal,
  resumeMigration,
} from '#tools/migrations/operator.js';
import { DST, h, ORG, Process, SRC, sourceEntries, startMigration, useMigrationHarness } from './migration-fixtures.js';

useMigrationHarness({ tables: 'own', freshTablesPerTest: true });

const LIMIT_MINUTES = DEFAULT_STALL_LIMIT_MS / 60_000;
const T = Date.now();
const clock = (minutes: number) => () => new Date(T + minutes * 60_000);
const deps = (minutes = 0) => ({ repository: h.repository, queue: h.queue, now: clock(minutes) });

describe('resume by id', () => {
  test('queues a message at once, without waiting for the stall limit, and the migration completes', async () => {
    await h.seed(sourceEntries(30));
    const id = await h.start(ORG, SRC, DST);
    // Its message was lost; the sweeper has already re-queued it once, in vain.
    await sweepJobs(migrationJob, deps(LIMIT_MINUTES + 1));
    expect((await h.repository.get(id))?.sweepResumes).toBe(1);

    const resumed = await resumeMigration(deps(LIMIT_MINUTES + 2), id);
    expect(resumed.sweepResumes).toBeUndefined(); // the sweeper's count starts over
    expect(resumed.sweptAt).toBe(clock(LIMIT_MINUTES + 2)().toISOString());
    expect(h.queue.sent).toEqual([id, id, id]);
    expect(await h.deliver(id)).toBe('completed');
  });

  test.each([
    ['an unknown id', async () => 'no-such-id', /no migration "no-such-id"/],
    [
      'a completed migration',
      async () => {
        const id = await h.start(ORG, SRC, DST);
        await h.deliver(id);
        return id;
      },
      /already completed: every entry was moved/,
    ],
    [
      'a running migration (a live lease)',
      async () => {
        const id = await h.start(ORG, SRC, DST);
        await h.repository.acquireLease(id, 'run-1', T + 60_000, new Date(T));
        return id;
      },
      /is running: a delivery holds it until/,
    ],
    [
      'a migration that was never queued',
      async () => {
        const process = new Process({ method: 'send', call: 1 });
        await expect(
          startMigration(
            { repository: process.wrap(h.repository), queue: process.wrap(h.queue) },
            { organizationId: ORG, documentId: SRC, newDocumentId: DST },
          ),
        ).rejects.toThrow();
        const [row] = await listStuck(deps(LIMIT_MINUTES + 1));
        return row?.record.migrationId as string;
      },
      /was never queued .*fail it/,
    ],
  ])('refused for %s, nothing sent', async (_name, prepare, message) => {
    const id = await prepare();
    const sent = h.queue.sent.length;
    const refusal = resumeMigration(deps(), id);
    await expect(refusal).rejects.toBeInstanceOf(OperatorRefusal);
    await expect(refusal).rejects.toThrow(message);
    expect(h.queue.sent).toHaveLength(sent);
  });
});

describe('fail by id', () => {
  test('marks it failed with the reason given, frees its documents: the same migration can start again', async () => {
    const id = await h.start(ORG, SRC, DST);
    const failed = await failMigration(deps(), id, { reason: 'Stopped for an incident; start it again.' });
    expect(failed).toMatchObject({ status: 'failed', error: 'Stopped for an incident; start it again.' });
    expect(await h.lockExists(ORG, SRC)).toBe(false);
    expect(await h.lockExists(ORG, DST)).toBe(false);
    const again = await h.start(ORG, SRC, DST);
    expect(again).not.toBe(id);
    // Out of the index of active migrations.
    expect((await listStuck(deps(10 * LIMIT_MINUTES))).map((row) => row.record.migrationId)).toEqual([again]);
  });

  test('refuses a running migration unless forced; forced, the delivery stops at its next page', async () => {
    await h.seed(sourceEntries(120));
    const id = await h.start(ORG, SRC, DST);
    // A delivery is running: it holds the lease while it works on its pages.
    let failedMeanwhile: Promise<unknown> | undefined;
    const entries = Object.create(h.store);
    entries.listDocumentEntries = async (...args: Parameters<typeof h.store.listDocumentEntries>) => {
      const page = await h.store.listDocumentEntries(...args);
      if (!failedMeanwhile) {
        await expect(failMigration(deps(), id)).rejects.toThrow(/is running: .*force/);
        failedMeanwhile = failMigration(deps(), id, { force: true });
        await failedMeanwhile;
      }
      return page;
    };
    await expect(h.deliver(id, { entries, pageSize: 50 })).rejects.toBeInstanceOf(LeaseLostError);
    expect(await h.repository.get(id)).toMatchObject({ status: 'failed', error: OPERATOR_FAIL_REASON });
    // Nothing was deleted from the source: the page was never saved.
    expect(await h.documentEntries(ORG, SRC)).toHaveLength(120);
    expect(await h.lockExists(ORG, SRC)).toBe(false);
  });

  test('refused for a finished migration', async () => {
    const id = await h.start(ORG, SRC, DST);
    await failMigration(deps(), id);
    await expect(failMigration(deps(), id)).rejects.toThrow(
      /already failed \(The migration was stopped by an operator/,
    );
  });
});

test('list: the quiet active migrations, each with what the sweeper will do', async () => {
  const exhausted = await h.start(ORG, 'doc/exhausted', 'doc/exhausted-new');
  for (let i = 1; i <= MAX_SWEEP_RESUMES; i++) await sweepJobs(migrationJob, deps(i * (LIMIT_MINUTES + 1)));
  const running = await h.start(ORG, 'doc/running', 'doc/running-new');
  await h.repository.acquireLease(running, 'run-1', T + 10 * LIMIT_MINUTES * 60_000, new Date(T));
  const lost = await h.start(ORG, 'doc/lost', 'doc/lost-new');
  const redriven = await h.start(ORG, 'doc/redriven', 'doc/redriven-new');
  const finished = await h.start(ORG, 'doc/done', 'doc/done-new');
  await h.deliver(finished);
  const now = 4 * (LIMIT_MINUTES + 1);
  await resumeMigration(deps(now - 1), redriven);

  const rows = await listStuck(deps(now));
  const verdicts = Object.fromEntries(rows.map((row) => [row.record.migrationId, row.verdict]));
  expect(verdicts).toEqual({
    [exhausted]: { action: 'fail', guard: 'stalled', reason: expect.stringContaining('made no progress') },
    [running]: { action: 'leave', why: 'leased' },
    [lost]: { action: 'resume' },
    [redriven]: { action: 'leave', why: 'resumed' },
  });
});
