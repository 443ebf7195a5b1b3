import { ApiError } from '#shared/api/errors.js';
import { ERASURE_NOT_FOUND_MESSAGE, type ErasureView, toErasureView } from './model.js';
import type { ErasureRepository } from './repository.js';

/** docs/api.md, users/erase/status: unknown ids and ids of other organizations look the same. */
export const getErasureView = async (
  { repository, now = () => new Date() }: { repository: ErasureRepository; now?: () => Date },
  organizationId: string,
  erasureId: string,
): Promise<ErasureView> => {
  const record = await repository.get(erasureId);
  if (!record || record.organizationId !== organizationId) throw new ApiError('NOT_FOUND', ERASURE_NOT_FOUND_MESSAGE);
  return toErasureView(record, now());
};
