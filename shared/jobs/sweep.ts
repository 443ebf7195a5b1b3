import pMap from 'p-map';
import { logger } from '#shared/platform/logger.js';
import { idField, type JobKind, jobIdOf } from './kind.js';
import type { JobQueue } from './queue.js';
import type { JobRecord } from './record.js';
import type { JobRepository } from './repository.js';
import { DEFAULT_STALL_LIMIT_MS, judgeJob, type StuckVerdict } from './stuck-policy.js';
import { titleOf } from './wording.js';

/** The lease owner the sweeper fails jobs as: no delivery ever holds it. */
export const SWEEPER_OWNER = 'sweeper';

/** Candidates handled per sweep of a kind: the rest are still quiet at the next one. */
export const MAX_PER_SWEEP = 200;
const CONCURRENCY = 4;

export interface SweepDeps<R extends JobRecord> {
  repository: JobRepository<R>;
  queue: JobQueue;
  now?: () => Date;
  stallLimitMs?: number;
  maxPerSweep?: number;
}

export interface SweepReport {
  /** The kind swept ("migration"). */
  kind: string;
  /** Quiet active jobs the index returned. */
  candidates: number;
  resumed: string[];
  failed: string[];
  /** Candidates whose write failed (logged): the sweep reports an error after the others. */
  errors: number;
}

// biome-ignore lint/suspicious/noExplicitAny: the sweeper handles any kind's records alike
type Kind = JobKind<any, any, unknown>;

/**
 * Re-queues a stalled job: the conditional mark first (unchanged since read, no live lease),
 * then the message. A duplicate message is harmless (dropped once finished, retried behind a
 * live lease); a mark without its message (the send failed) is retried one stall limit later,
 * like any other stalled job.
 */
export const resumeStalled = async <R extends JobRecord>(
  kind: { idAttribute: string },
  { repository, queue }: Pick<SweepDeps<R>, 'repository' | 'queue'>,
  record: R,
  at: Date,
  options: { resetCount?: boolean } = {},
): Promise<boolean> => {
  const id = jobIdOf(kind, record);
  const { updatedAt, sweptAt } = record;
  if (!(await repository.markResumed({ id, updatedAt, ...(sweptAt === undefined ? {} : { sweptAt }) }, at, options))) {
    return false;
  }
  await queue.send(id);
  return true;
};

/** Applies a verdict to one record; true when it changed something. */
const apply = async <R extends JobRecord>(
  kind: Kind,
  deps: SweepDeps<R>,
  record: R,
  verdict: StuckVerdict,
  at: Date,
): Promise<boolean> => {
  const { repository } = deps;
  const ids = idField(kind, jobIdOf(kind, record));
  if (verdict.action === 'leave') return false;
  if (verdict.action === 'resume') {
    const resumed = await resumeStalled(kind, deps, record, at);
    if (resumed) {
      logger.warn(`Stalled ${kind.name} re-queued by the sweeper`, {
        ...ids,
        status: record.status,
        updatedAt: record.updatedAt,
        resumes: (record.sweepResumes ?? 0) + 1,
      });
    }
    return resumed;
  }
  const guard =
    verdict.guard === 'unqueued'
      ? { onlyIfUnqueued: true as const }
      : { owner: SWEEPER_OWNER, updatedAt: record.updatedAt };
  if (!(await repository.fail(jobIdOf(kind, record), verdict.reason, at, guard))) return false;
  kind.ended?.('failed');
  // WARN, not ERROR: the job's caller learns it from the status route (and an event, for a
  // migration); an operator is told by the sweeper's log (and the MigrationsFailed metric).
  logger.warn(`${titleOf(kind)} failed by the sweeper`, {
    ...ids,
    reason: verdict.reason,
    updatedAt: record.updatedAt,
  });
  await repository.releaseLocks(record);
  return true;
};

/**
 * One sweep of a kind: its active jobs quiet for longer than the stall limit, from the index,
 * each judged by stuck-policy.ts and resumed or failed with guarded writes, so that a sweep
 * racing a delivery, another sweep or an operator changes nothing the other has done. Throws
 * after the others when some candidate could not be handled.
 */
export const sweepJobs = async <R extends JobRecord>(kind: Kind, deps: SweepDeps<R>): Promise<SweepReport> => {
  const {
    repository,
    now = () => new Date(),
    stallLimitMs = DEFAULT_STALL_LIMIT_MS,
    maxPerSweep = MAX_PER_SWEEP,
  } = deps;
  const started = now();
  const candidates = await repository.listQuiet(new Date(started.getTime() - stallLimitMs).toISOString(), maxPerSweep);
  const report: SweepReport = { kind: kind.name, candidates: candidates.length, resumed: [], failed: [], errors: 0 };
  await pMap(
    candidates,
    async (record) => {
      const at = now();
      const verdict = judgeJob(kind, record, at, stallLimitMs);
      try {
        if (await apply(kind, deps, record, verdict, at)) {
          (verdict.action === 'resume' ? report.resumed : report.failed).push(jobIdOf(kind, record));
        }
      } catch (error) {
        report.errors += 1;
        logger.error(`Could not handle a stalled ${kind.name}`, {
          error,
          ...idField(kind, jobIdOf(kind, record)),
          verdict,
        });
      }
    },
    { concurrency: CONCURRENCY },
  );
  // Most sweeps find nothing: only those that acted are worth a line by default.
  const acted = report.resumed.length + report.failed.length + report.errors > 0;
  (acted ? logger.info : logger.debug).call(logger, `${titleOf(kind)} sweep done`, {
    ...report,
    resumed: report.resumed.length,
    failed: report.failed.length,
  });
  if (report.errors > 0) {
    throw new Error(`${report.errors} stalled ${kind.name}(s) could not be handled; see the log`);
  }
  return report;
};

/** What one scheduled sweep answers (in its log and to a local caller): counts per kind, never records. */
export interface SweepSummary {
  candidates: number;
  resumed: number;
  failed: number;
}

/**
 * The scheduled sweep of every kind, one after the other: each kind's summary by its name. A kind
 * whose sweep throws does not stop the others; the sweep then throws after all of them, so that
 * the function's Errors alarm tells an operator.
 */
export const sweepKinds = async (
  sweeps: readonly (() => Promise<SweepReport>)[],
): Promise<Record<string, SweepSummary>> => {
  const summary: Record<string, SweepSummary> = {};
  const errors: unknown[] = [];
  for (const sweep of sweeps) {
    try {
      const { kind, candidates, resumed, failed } = await sweep();
      summary[kind] = { candidates, resumed: resumed.length, failed: failed.length };
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length > 0) throw new AggregateError(errors, errors.map((error) => (error as Error).message).join('; '));
  return summary;
};
