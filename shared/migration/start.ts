import { ulid } from 'ulid';
import { ApiError } from '#shared/errors.js';
import { logger } from '#shared/observability/logger.js';
import { isActiveStatus, isStaleHolder, type MigrationLock, type MigrationRecord } from './model.js';
import type { MigrationQueue } from './queue.js';
import type { MigrationRepository } from './repository.js';
import type { MigrateRequest } from './schemas.js';

export interface StartDeps {
  repository: MigrationRepository;
  queue: MigrationQueue;
  now?: () => Date;
  newId?: () => string;
}

const LOCK_ATTEMPTS = 3;

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
 * Contract 5.1. Records the migration (pending), takes a lock on the source and on the target
 * document with conditional writes (DynamoDB transactions are avoided: each step is undone on
 * failure instead), queues the first message, and marks the record queued.
 *
 * - The same request while its migration is active answers that migration's id, queuing nothing.
 * - A lock held by a migration that is gone, over, or abandoned (never queued) is taken over.
 * - A record that loses a lock race, or whose message cannot be queued, is marked failed and
 *   its locks are released, so that nothing stays pending.
 */
export const startMigration = async (
  { repository, queue, now = () => new Date(), newId = ulid }: StartDeps,
  request: MigrateRequest,
): Promise<{ migrationId: string }> => {
  // Fast path for a repeated request: one read, no write.
  const existing = await activeHolder(repository, request.organizationId, request.documentId, now());
  if (existing && isSameRequest(existing, request)) return { migrationId: existing.migrationId };

  const createdAt = now();
  const migrationId = newId();
  const record: MigrationRecord = {
    migrationId,
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

  const held: string[] = [];
  const releaseHeld = () =>
    Promise.all(held.map((documentId) => repository.releaseLock(request.organizationId, documentId, migrationId)));
  try {
    for (const [documentId, role] of [
      [request.documentId, 'source'],
      [request.newDocumentId, 'target'],
    ] as const) {
      await acquireLock(repository, { organizationId: request.organizationId, documentId, migrationId, role }, now);
      held.push(documentId);
    }
  } catch (error) {
    const reason =
      error instanceof LockConflict
        ? 'Another migration involves one of its documents.'
        : 'The migration could not be started.';
    await repository.fail(migrationId, reason, now(), { onlyIfUnqueued: true });
    await releaseHeld();
    if (!(error instanceof LockConflict)) throw error;
    // Lost a race against the same request: answer the winner's id, as a repeat would.
    if (isSameRequest(error.holder, request)) return { migrationId: error.holder.migrationId };
    throw conflict(request);
  }

  try {
    await queue.send(migrationId);
  } catch (error) {
    logger.error('Migration message could not be queued', { error, migrationId });
    await repository
      .fail(migrationId, 'The migration could not be queued.', now(), { onlyIfUnqueued: true })
      .catch((failError) => logger.error('Could not mark the migration failed', { error: failError, migrationId }));
    await releaseHeld().catch((releaseError) =>
      logger.error('Could not release migration locks', { error: releaseError, migrationId }),
    );
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
