import { ApiError } from '#shared/api/errors.js';
import type { JobKind } from './kind.js';
import { isAbandoned, type JobRecord } from './record.js';
import type { JobRepository } from './repository.js';

/** A record as its status route shows it: the kind's view, a never-queued record past its time as failed. */
export const jobView = <R extends JobRecord & Q, Q extends { organizationId: string }, V>(
  kind: JobKind<R, Q, V, string>,
  record: R,
  now: Date,
): V => kind.view(record, isAbandoned(record, now));

/** docs/api.md, the status routes: unknown ids and ids of other organizations look the same. */
export const getJobView = async <R extends JobRecord & Q, Q extends { organizationId: string }, V>(
  kind: JobKind<R, Q, V, string>,
  { repository, now = () => new Date() }: { repository: Pick<JobRepository<R>, 'get'>; now?: () => Date },
  organizationId: string,
  id: string,
): Promise<V> => {
  const record = await repository.get(id);
  if (!record || record.organizationId !== organizationId) throw new ApiError('NOT_FOUND', kind.wording.notFound);
  return jobView(kind, record, now());
};
