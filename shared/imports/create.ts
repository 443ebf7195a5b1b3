import { PRESIGNED_URL_SECONDS } from '#shared/files/keys.js';
import type { FileStore } from '#shared/files/store.js';
import type { JobRepository } from '#shared/jobs/repository.js';
import { newJobId, newJobRecord } from '#shared/jobs/start.js';
import { importJob } from './kind.js';
import type { ImportRecord } from './model.js';
import type { ImportRequest } from './routes/create-import.js';

/** S3 notices of an upload at the URL's last second arrive within this (they usually take under a second). */
const UPLOAD_NOTICE_GRACE_MS = 5 * 60_000;

export interface CreateImportDeps {
  repository: Pick<JobRepository<ImportRecord>, 'create'>;
  files: Pick<FileStore, 'uploadUrl'>;
  now?: () => Date;
  newId?: () => string;
}

/**
 * imports/create (docs/api.md, Imports): records the import, waiting for its file until the
 * upload URL has expired (and its notice had time to arrive), and answers the URL. The file's
 * arrival queues the import (upload.ts); none by then, and the import is failed (the engine's
 * abandoned record: shared/jobs/record.ts).
 */
export const createImport = async (
  { repository, files, now = () => new Date(), newId = newJobId }: CreateImportDeps,
  request: ImportRequest,
  requestedBy: string,
): Promise<{ importId: string; uploadUrl: string; uploadExpiresAt: string }> => {
  const at = now();
  const record: ImportRecord = {
    ...newJobRecord(importJob, request, requestedBy, newId(), at.toISOString()),
    queueBy: new Date(at.getTime() + PRESIGNED_URL_SECONDS * 1000 + UPLOAD_NOTICE_GRACE_MS).toISOString(),
  };
  await repository.create(record);
  const { url, expiresAt } = await files.uploadUrl(record.fileKey, at);
  return { importId: record.importId, uploadUrl: url, uploadExpiresAt: expiresAt };
};
