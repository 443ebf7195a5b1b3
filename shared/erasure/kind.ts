import type { JobKind } from '#shared/jobs/kind.js';
import { ERASURE_PREFIX, erasureLockKey } from './keys.js';
import { ERASURE_TTL_ATTRIBUTE, type ErasureRecord, type ErasureView, erasureExpiry } from './model.js';
import type { EraseRequest } from './routes/erase-user.js';

/**
 * User erasure as a job of the engine (shared/jobs/): what is an erasure's own. Its page step
 * (what the consumer does) is in worker.ts.
 */
export const erasureJob: JobKind<ErasureRecord, EraseRequest, ErasureView, 'erasureId'> = {
  name: 'erasure',
  idAttribute: 'erasureId',
  keyPrefix: ERASURE_PREFIX,
  activePartition: 'ACTIVE#ERASURE',
  counters: ['erased'],
  fields: ({ userId }) => ({ userId }),
  // The user in the organization: its lock names the erasure active for them.
  subjectAttribute: 'userId',
  lockKey: erasureLockKey,
  lockSubjects: ({ userId }) => [{ subject: userId }],
  finished: (at) => ({ [ERASURE_TTL_ATTRIBUTE]: erasureExpiry(at) }),
  view: (record, abandoned) => ({
    erasureId: record.erasureId,
    organizationId: record.organizationId,
    userId: record.userId,
    status: abandoned ? 'failed' : record.status,
    erased: record.erased,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.completedAt ? { completedAt: record.completedAt } : {}),
  }),
  wording: {
    unfinished: 'start it again to finish.',
    lostLock: 'Another erasure of the user started first.',
    locksBusy: "The user's erasure lock is changing hands; the request is safe to retry.",
    notFound: 'Erasure not found.',
    // Never answered: the one lock is the user's, so an active erasure holding it is the same request.
    conflict: ({ userId }) => `User ${JSON.stringify(userId)} is being erased; retry once it has finished.`,
  },
};
