import pMap from 'p-map';
import { logger } from '#shared/platform/logger.js';
import { countMigrationEnded } from '#shared/platform/metrics.js';
import type { MigrationRecord } from './model.js';
import type { MigrationQueue } from './queue.js';
import type { MigrationRepository } from './repository.js';
import { DEFAULT_STALL_LIMIT_MS, judgeMigration, type StuckVerdict } from './stuck-policy.js';

/** The lease owner the sweeper fails migrations as: no delivery ever holds it. */
export const SWEEPER_OWNER = 'sweeper';

/** Candidates handled per sweep: the rest are still quiet at the next one. */
export const MAX_PER_SWEEP = 200;
const CONCURRENCY = 4;

export interface SweepDeps {
  repository: MigrationRepository;
  queue: MigrationQueue;
  now?: () => Date;
  stallLimitMs?: number;
  maxPerSweep?: number;
}

export interface SweepReport {
  /** Quiet active migrations the index returned. */
  candidates: number;
  resumed: string[];
  failed: string[];
  /** Candidates whose write failed (logged): the sweep reports an error after the others. */
  errors: number;
}

/** Frees the documents of a migration that is over: each lock only if it still names it. */
export const releaseLocks = (repository: MigrationRepository, record: MigrationRecord): Promise<unknown> =>
  Promise.all([
    repository.releaseLock(record.organizationId, record.documentId, record.migrationId),
    repository.releaseLock(record.organizationId, record.newDocumentId, record.migrationId),
  ]);

/**
 * Re-queues a stalled migration: the conditional mark first (unchanged since read, no live
 * lease), then the message. A duplicate message is harmless (dropped once finished, retried
 * behind a live lease); a mark without its message (the send failed) is retried one stall limit
 * later, like any other stalled migration.
 */
export const resumeStalled = async (
  { repository, queue }: Pick<SweepDeps, 'repository' | 'queue'>,
  record: MigrationRecord,
  at: Date,
  options: { resetCount?: boolean } = {},
): Promise<boolean> => {
  const { migrationId, updatedAt, sweptAt } = record;
  const seen = { migrationId, updatedAt, ...(sweptAt === undefined ? {} : { sweptAt }) };
  if (!(await repository.markResumed(seen, at, options))) return false;
  await queue.send(migrationId);
  return true;
};

/** Applies a verdict to one record; true when it changed something. */
const apply = async (deps: SweepDeps, record: MigrationRecord, verdict: StuckVerdict, at: Date): Promise<boolean> => {
  const { repository } = deps;
  const { migrationId } = record;
  if (verdict.action === 'leave') return false;
  if (verdict.action === 'resume') {
    const resumed = await resumeStalled(deps, record, at);
    if (resumed) {
      logger.warn('Stalled migration re-queued by the sweeper', {
        migrationId,
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
  if (!(await repository.fail(migrationId, verdict.reason, at, guard))) return false;
  countMigrationEnded('failed');
  // WARN, not ERROR: the migration's caller learns it from the status route and the failed
  // event; an operator is told by the sweeper's log and the MigrationsFailed metric.
  logger.warn('Migration failed by the sweeper', { migrationId, reason: verdict.reason, updatedAt: record.updatedAt });
  await releaseLocks(repository, record);
  return true;
};

/** What one scheduled sweep answers (in its log and to a local caller): counts, never records. */
export interface SweepSummary {
  candidates: number;
  resumed: number;
  failed: number;
}

export const sweepSummary = ({ candidates, resumed, failed }: SweepReport): SweepSummary => ({
  candidates,
  resumed: resumed.length,
  failed: failed.length,
});

/**
 * One sweep (run every few minutes): the active migrations quiet for longer than the stall
 * limit, from the index, each judged by stuck-policy.ts and resumed or failed with guarded
 * writes, so that a sweep racing a delivery, another sweep or an operator changes nothing the
 * other has done. Throws after the others when some candidate could not be handled.
 */
export const sweepMigrations = async (deps: SweepDeps): Promise<SweepReport> => {
  const {
    repository,
    now = () => new Date(),
    stallLimitMs = DEFAULT_STALL_LIMIT_MS,
    maxPerSweep = MAX_PER_SWEEP,
  } = deps;
  const started = now();
  const candidates = await repository.listQuiet(new Date(started.getTime() - stallLimitMs).toISOString(), maxPerSweep);
  const report: SweepReport = { candidates: candidates.length, resumed: [], failed: [], errors: 0 };
  await pMap(
    candidates,
    async (record) => {
      const at = now();
      const verdict = judgeMigration(record, at, stallLimitMs);
      try {
        if (await apply(deps, record, verdict, at)) {
          (verdict.action === 'resume' ? report.resumed : report.failed).push(record.migrationId);
        }
      } catch (error) {
        report.errors += 1;
        logger.error('Could not handle a stalled migration', { error, migrationId: record.migrationId, verdict });
      }
    },
    { concurrency: CONCURRENCY },
  );
  // Most sweeps find nothing: only those that acted are worth a line by default.
  const acted = report.resumed.length + report.failed.length + report.errors > 0;
  (acted ? logger.info : logger.debug).call(logger, 'Migration sweep done', {
    ...report,
    resumed: report.resumed.length,
    failed: report.failed.length,
  });
  if (report.errors > 0) throw new Error(`${report.errors} stalled migration(s) could not be handled; see the log`);
  return report;
};
