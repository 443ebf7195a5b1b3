import { monotonicFactory } from 'ulid';
import { ApiError } from '#shared/api/errors.js';
import { logger } from '#shared/platform/logger.js';
import { type ErasureRecord, isAbandonedErasure, isActiveErasure } from './model.js';
import type { ErasureQueue } from './queue.js';
import type { ErasureRepository } from './repository.js';
import type { EraseRequest } from './routes/erase-user.js';

export interface StartErasureDeps {
  repository: ErasureRepository;
  queue: ErasureQueue;
  now?: () => Date;
  newId?: () => string;
}

const LOCK_ATTEMPTS = 3;
const nextId = monotonicFactory();

const isLive = (record: ErasureRecord | undefined, now: Date): record is ErasureRecord =>
  record !== undefined && isActiveErasure(record.status) && !isAbandonedErasure(record, now);

/**
 * docs/api.md, users/erase. Records the erasure (pending), takes the user's lock in the
 * organization (a conditional put), queues the first message and marks the record queued.
 * While an erasure of the user is active, a repeat answers its id (finishing its queuing if an
 * earlier attempt stopped before). A lock held by a finished or abandoned erasure is taken over.
 * If the message cannot be queued, the record is failed and the lock released: 503.
 */
export const startErasure = async (deps: StartErasureDeps, request: EraseRequest): Promise<{ erasureId: string }> => {
  const { repository, now = () => new Date(), newId = () => nextId() } = deps;
  const { organizationId, userId } = request;

  for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
    const lock = await repository.getLock(organizationId, userId);
    const holder = lock ? await repository.get(lock.erasureId) : undefined;
    if (isLive(holder, now())) {
      return holder.queuedAt === undefined ? queueIt(deps, holder) : { erasureId: holder.erasureId };
    }
    const at = now().toISOString();
    const record: ErasureRecord = {
      erasureId: newId(),
      organizationId,
      userId,
      status: 'pending',
      erased: 0,
      createdAt: at,
      updatedAt: at,
      runs: {},
    };
    // The record first, so that a lock never names a missing erasure unless its request died.
    await repository.create(record);
    const taken =
      (await repository.putLock(
        { organizationId, userId, erasureId: record.erasureId, createdAt: at },
        lock?.erasureId,
      )) ||
      // A put answered late and retried by the SDK meets its own lock.
      (await repository.getLock(organizationId, userId))?.erasureId === record.erasureId;
    if (taken) return queueIt(deps, record);
    // Another request took the lock meanwhile: this record is dropped, the next round answers the winner.
    await repository.fail(record.erasureId, 'Another erasure of the user started first.', now(), {
      onlyIfUnqueued: true,
    });
  }
  throw new ApiError('UNAVAILABLE', "The user's erasure lock is changing hands; the request is safe to retry.");
};

const queueIt = async (
  { repository, queue, now = () => new Date() }: StartErasureDeps,
  record: ErasureRecord,
): Promise<{ erasureId: string }> => {
  const { erasureId, organizationId, userId } = record;
  try {
    await queue.send(erasureId);
  } catch (error) {
    logger.error('Erasure message could not be queued', { error, erasureId });
    await Promise.allSettled([
      repository.fail(erasureId, 'The erasure could not be queued.', now(), { onlyIfUnqueued: true }),
      repository.releaseLock(organizationId, userId, erasureId),
    ]);
    throw new ApiError('UNAVAILABLE', 'The erasure could not be queued; the request is safe to retry.', { erasureId });
  }
  await repository
    .markQueued(erasureId, now().toISOString())
    .catch((error) => logger.warn('Could not mark the erasure queued', { error, erasureId }));
  return { erasureId };
};
