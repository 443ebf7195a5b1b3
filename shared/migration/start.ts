import { monotonicFactory } from 'ulid';
import { ApiError } from '#shared/api/errors.js';
import { logger } from '#shared/platform/logger.js';
import { isActiveStatus, isStaleHolder, type MigrationLock, type MigrationRecord } from './model.js';
import type { MigrationQueue } from './queue.js';
import type { MigrationRepository } from './repository.js';
import type { MigrateRequest } from './routes/migrate-document.js';

export interface StartDeps {
  repository: MigrationRepository;
  queue: MigrationQueue;
  now?: () => Date;
  newId?: () => string;
}

const LOCK_ATTEMPTS = 3;

/** ULIDs: unique, sortable by creation time, and strictly increasing within one process. */
const nextId = monotonicFactory();

/** A document is the source or the target of another active migration. */
class LockConflict extends Error {
  constructor(readonly holder: MigrationRecord) {
    super('Document locked by another migration');
  }
}

const isSameRequest = (record: MigrationRecord, request: MigrateRequest): boolean =>
  record.organizationId === request.organizationId &&
  record.documentId === request.documentId &&
  record.newDocumentId === request.newDocumentId;

const conflict = (request: MigrateRequest): ApiError =>
  new ApiError(
    'ABORTED',
    `Document ${JSON.stringify(request.documentId)} or ${JSON.stringify(request.newDocumentId)} is already part of an active migration; retry once it has finished.`,
  );

/**
 * docs/api.md, documents/migrate. Records the migration (pending), takes a lock on the source and on the target
 * document with conditional writes (DynamoDB transactions are avoided: each step is undone on
 * failure instead), queues the first message, and marks the record queued.
 *
 * - The same request while its migration is active answers that migration's id, queuing
 *   nothing; if an earlier attempt of it stopped before queuing, the repeat finishes that one.
 * - A lock held by a migration that is gone, over, or abandoned (never queued) is taken over.
 * - A record that loses a lock race, or whose message cannot be queued, is marked failed and
 *   its locks are released, so that nothing stays pending.
 */
export const startMigration = async (deps: StartDeps, request: MigrateRequest): Promise<{ migrationId: string }> => {
  const { repository, now = () => new Date(), newId = () => nextId() } = deps;
  // A repeated request: one read (two), no write.
  const existing = await activeHolder(repository, request.organizationId, request.documentId, now());
  if (existing && isSameRequest(existing, request)) {
    if (existing.status !== 'pending' || existing.queuedAt !== undefined) return { migrationId: existing.migrationId };
    // An earlier attempt of this request stopped between recording and queuing (a dependency
    // failed, or it is still running: a second message is harmless). Finish it.
    return lockAndQueue(deps, existing, request);
  }

  const createdAt = now();
  const record: MigrationRecord = {
    migrationId: newId(),
    organizationId: request.organizationId,
    documentId: request.documentId,
    newDocumentId: request.newDocumentId,
    status: 'pending',
    moved: 0,
    skipped: 0,
    createdAt: createdAt.toISOString(),
    updatedAt: createdAt.toISOString(),
    runs: {},
    skippedCheckpoint: [],
  };
  // The record exists before any lock names it, so a lock never points at a missing record
  // unless that record's request died (then the lock is stale and recoverable).
  await repository.create(record);
  return lockAndQueue(deps, record, request);
};

/** Best effort: every step is tried, failures are logged (the caller is answering an error anyway). */
const undo = async (migrationId: string, steps: (() => Promise<unknown>)[]): Promise<void> => {
  const results = await Promise.allSettled(steps.map((step) => step()));
  for (const result of results) {
    if (result.status === 'rejected')
      logger.error('Could not undo a migration step', { error: result.reason, migrationId });
  }
};

const lockAndQueue = async (
  { repository, queue, now = () => new Date() }: StartDeps,
  record: MigrationRecord,
  request: MigrateRequest,
): Promise<{ migrationId: string }> => {
  const { migrationId, organizationId } = record;
  const held: string[] = [];
  const giveUp = (reason: string) =>
    undo(migrationId, [
      () => repository.fail(migrationId, reason, now(), { onlyIfUnqueued: true }),
      ...held.map((documentId) => () => repository.releaseLock(organizationId, documentId, migrationId)),
    ]);

  try {
    for (const [documentId, role] of [
      [record.documentId, 'source'],
      [record.newDocumentId, 'target'],
    ] as const) {
      await acquireLock(repository, { organizationId, documentId, migrationId, role }, now);
      held.push(documentId);
    }
  } catch (error) {
    const lost = error instanceof LockConflict;
    await giveUp(lost ? 'Another migration involves one of its documents.' : 'The migration could not be started.');
    if (!lost) throw error;
    // Lost a race against the same request: answer the winner's id, as a repeat would.
    if (isSameRequest(error.holder, request)) return { migrationId: error.holder.migrationId };
    throw conflict(request);
  }

  try {
    await queue.send(migrationId);
  } catch (error) {
    logger.error('Migration message could not be queued', { error, migrationId });
    await giveUp('The migration could not be queued.');
    throw new ApiError('UNAVAILABLE', 'The migration could not be queued; the request is safe to retry.', {
      migrationId,
    });
  }
  // The message is out: the migration will run whatever happens next. Without the mark the
  // record would only look abandoned once it has waited in the queue for minutes.
  await repository
    .markQueued(migrationId, now().toISOString())
    .catch((error) => logger.warn('Could not mark the migration queued', { error, migrationId }));
  return { migrationId };
};

/** The active migration that holds this document's lock, if any (stale holders do not count). */
const activeHolder = async (
  repository: MigrationRepository,
  organizationId: string,
  documentId: string,
  now: Date,
): Promise<MigrationRecord | undefined> => {
  const lock = await repository.getLock(organizationId, documentId);
  if (!lock) return undefined;
  const record = await repository.get(lock.migrationId);
  return record && !isStaleHolder(record, now) ? record : undefined;
};

const acquireLock = async (
  repository: MigrationRepository,
  lock: Omit<MigrationLock, 'createdAt'>,
  now: () => Date,
): Promise<void> => {
  for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
    if (await repository.putLock({ ...lock, createdAt: now().toISOString() })) return;
    const current = await repository.getLock(lock.organizationId, lock.documentId);
    if (!current) continue; // released meanwhile: try again
    if (current.migrationId === lock.migrationId) return; // taken by an earlier attempt of this migration
    const holder = await repository.get(current.migrationId);
    if (holder && !isStaleHolder(holder, now())) throw new LockConflict(holder);
    // Stale. An abandoned holder is failed first (only if it is still unqueued, so a record the
    // consumer has meanwhile started is never taken over), then the lock changes hands only if
    // it still names that holder.
    if (holder && isActiveStatus(holder.status)) {
      const failed = await repository.fail(holder.migrationId, 'The migration could not be queued.', now(), {
        onlyIfUnqueued: true,
      });
      if (!failed) continue;
    }
    if (await repository.putLock({ ...lock, createdAt: now().toISOString() }, current.migrationId)) return;
  }
  throw new ApiError('UNAVAILABLE', 'The document locks are changing hands; the request is safe to retry.');
};
