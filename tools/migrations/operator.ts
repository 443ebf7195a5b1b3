import { MAX_IDENTIFIER_LENGTH } from '#shared/api/identifiers.js';
import type { JobQueue } from '#shared/jobs/queue.js';
import type { JobRepository } from '#shared/jobs/repository.js';
import { isActiveStatus } from '#shared/jobs/status.js';
import { DEFAULT_STALL_LIMIT_MS, judgeJob, type StuckVerdict } from '#shared/jobs/stuck-policy.js';
import { MAX_PER_SWEEP, resumeStalled } from '#shared/jobs/sweep.js';
import { migrationJob } from '#shared/migration/kind.js';
import type { MigrationRecord } from '#shared/migration/model.js';
import { CommandError, printable } from '../cli/output.js';

type MigrationRepository = JobRepository<MigrationRecord>;

/*
 * What an operator may do about one migration (tools/migrations/): re-drive it or fail it by
 * id, without waiting for the sweeper (shared/jobs/sweep.ts), and list the ones the sweeper is about to
 * handle. The same guarded writes as the sweeper's, so that an operator racing a delivery or a
 * sweep never undoes what the other did.
 */

export interface OperatorDeps {
  repository: MigrationRepository;
  queue: JobQueue;
  now?: () => Date;
}

/** The lease owner an operator fails migrations as: no delivery ever holds it. */
export const OPERATOR_OWNER = 'operator';

export const OPERATOR_FAIL_REASON =
  'The migration was stopped by an operator; documents may be partly migrated. Start it again to finish.';

/** A refusal: the migration is not in a state the request applies to. The message says why and what to do. */
export class OperatorRefusal extends CommandError {
  override readonly name = 'OperatorRefusal';
}

const activeRecord = async (repository: MigrationRepository, migrationId: string): Promise<MigrationRecord> => {
  // Longer than any id can be: no migration has it (and DynamoDB would refuse the lookup).
  const record = migrationId.length <= MAX_IDENTIFIER_LENGTH ? await repository.get(migrationId) : undefined;
  if (!record) throw new OperatorRefusal(`no migration ${printable(JSON.stringify(migrationId))}`);
  if (record.status === 'completed') {
    throw new OperatorRefusal(`migration ${printable(migrationId)} is already completed: every entry was moved`);
  }
  if (!isActiveStatus(record.status)) {
    throw new OperatorRefusal(
      `migration ${migrationId} is already ${record.status}${record.error ? ` (${record.error})` : ''}; start a new one to move what is left`,
    );
  }
  return record;
};

const liveLeaseUntil = (record: MigrationRecord, now: Date): string | undefined =>
  record.leaseUntil !== undefined && record.leaseUntil > now.getTime()
    ? new Date(record.leaseUntil).toISOString()
    : undefined;

/**
 * Queues a message for an active migration that no delivery is working on, at once (the
 * consumer resumes it where it stopped), and gives the sweeper its count of re-queues afresh.
 * Refused for a migration that is finished, leased (it is running), or was never queued (its
 * request died before queuing, and a repeat of it may own its documents now: fail it instead).
 */
export const resumeMigration = async (
  { repository, queue, now = () => new Date() }: OperatorDeps,
  migrationId: string,
): Promise<MigrationRecord> => {
  const record = await activeRecord(repository, migrationId);
  const at = now();
  const leased = liveLeaseUntil(record, at);
  if (leased) throw new OperatorRefusal(`migration ${migrationId} is running: a delivery holds it until ${leased}`);
  if (record.status === 'pending' && record.queuedAt === undefined) {
    throw new OperatorRefusal(
      `migration ${migrationId} was never queued (its request failed); fail it and start it again`,
    );
  }
  if (!(await resumeStalled(migrationJob, { repository, queue }, record, at, { resetCount: true }))) {
    throw new OperatorRefusal(`migration ${migrationId} changed while being resumed (a delivery took it?); look again`);
  }
  return (await repository.get(migrationId)) ?? record;
};

/**
 * Marks an active migration failed with `reason` and frees its documents (each lock only if it
 * still names it). Refused while a delivery holds a live lease, unless `force`: the delivery
 * then stops at its next page (its save finds the migration failed), having deleted no source
 * entry of that page.
 */
export const failMigration = async (
  { repository, now = () => new Date() }: Pick<OperatorDeps, 'repository' | 'now'>,
  migrationId: string,
  { reason = OPERATOR_FAIL_REASON, force = false }: { reason?: string; force?: boolean } = {},
): Promise<MigrationRecord> => {
  const record = await activeRecord(repository, migrationId);
  const at = now();
  const leased = liveLeaseUntil(record, at);
  if (leased && !force) {
    throw new OperatorRefusal(
      `migration ${migrationId} is running: a delivery holds it until ${leased}; wait, or force the failure (the delivery stops at its next page)`,
    );
  }
  const failed = await repository.fail(
    migrationId,
    reason,
    at,
    force ? { evenIfLeased: true } : { owner: OPERATOR_OWNER },
  );
  if (!failed) {
    throw new OperatorRefusal(
      `migration ${migrationId} changed while being failed (it finished, or was leased); look again`,
    );
  }
  await repository.releaseLocks(record);
  return (await repository.get(migrationId)) ?? record;
};

export interface StuckRow {
  record: MigrationRecord;
  verdict: StuckVerdict;
}

/** Active migrations quiet for longer than the stall limit, each with what the sweeper will do about it. */
export const listStuck = async (
  { repository, now = () => new Date() }: Pick<OperatorDeps, 'repository' | 'now'>,
  stallLimitMs = DEFAULT_STALL_LIMIT_MS,
): Promise<StuckRow[]> => {
  const at = now();
  const quiet = await repository.listQuiet(new Date(at.getTime() - stallLimitMs).toISOString(), MAX_PER_SWEEP);
  return quiet.map((record) => ({ record, verdict: judgeJob(migrationJob, record, at, stallLimitMs) }));
};
