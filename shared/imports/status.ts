import { ApiError } from '#shared/api/errors.js';
import type { FileStore } from '#shared/files/store.js';
import type { JobRepository } from '#shared/jobs/repository.js';
import { jobView } from '#shared/jobs/view.js';
import { importJob } from './kind.js';
import type { ImportRecord, ImportView } from './model.js';

/**
 * imports/status (docs/api.md): the import's view; once it has ended with rows to report, a
 * presigned GET of its error report, issued anew by each call. Unknown ids and other
 * organizations' answer alike.
 */
export const importStatus = async (
  {
    repository,
    files,
  }: { repository: Pick<JobRepository<ImportRecord>, 'get'>; files: Pick<FileStore, 'downloadUrl'> },
  { organizationId, importId }: { organizationId: string; importId: string },
  now = new Date(),
): Promise<ImportView> => {
  const record = await repository.get(importId);
  if (!record || record.organizationId !== organizationId) throw new ApiError('NOT_FOUND', importJob.wording.notFound);
  const view = jobView(importJob, record, now);
  const ended = view.status === 'completed' || view.status === 'failed';
  if (!ended || (record.rowsRejected === 0 && record.rowsPartlyMapped === 0)) return view;
  const { url } = await files.downloadUrl(record.errorReportKey, now);
  return { ...view, errorReportUrl: url };
};
