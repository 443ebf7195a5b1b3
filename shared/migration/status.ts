import { ApiError } from '#shared/api/errors.js';
import { type MigrationView, NOT_FOUND_MESSAGE, toView } from './model.js';
import type { MigrationRepository } from './repository.js';

/** docs/api.md, documents/migrate/status: unknown ids and ids of other organizations look the same. */
export const getMigrationView = async (
  { repository, now = () => new Date() }: { repository: MigrationRepository; now?: () => Date },
  organizationId: string,
  migrationId: string,
): Promise<MigrationView> => {
  const record = await repository.get(migrationId);
  if (!record || record.organizationId !== organizationId) throw new ApiError('NOT_FOUND', NOT_FOUND_MESSAGE);
  return toView(record, now());
};
