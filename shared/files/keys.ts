import { randomBytes } from 'node:crypto';
import type { FileFolder } from '#shared/platform/route.js';

/**
 * The keys of the files bucket: `<folder>/<organization>/<random>`. The random part (128 bits)
 * is what makes a key one no one can guess (contract 15.3); the organization in the path keeps
 * an operator's listing readable. A grant names a folder (`<folder>/*`), so the folders are
 * defined here once, for the stack and the code.
 */
export const FILE_FOLDERS: Record<FileFolder, string> = {
  imports: 'imports',
  importErrors: 'import-errors',
  exports: 'exports',
};

/** Files are deleted this many days after they were written (the bucket's lifecycle rule). */
export const FILE_RETENTION_DAYS = 7;

/** How long a presigned URL works: an upload's, and each download's (issued anew by each status call). */
export const PRESIGNED_URL_SECONDS = 3600;

/**
 * The largest upload: what S3 accepts in one PUT (5 GiB). A presigned PUT can carry no more, so
 * the URL itself refuses a larger file (S3 answers EntityTooLarge); the twin's stand-in does
 * the same (local/files/).
 */
export const MAX_UPLOAD_BYTES = 5 * 1024 ** 3;

/** A new key in `folder` for the organization's file `name` (an import or export id). */
export const fileKey = (folder: FileFolder, organizationId: string, name: string): string =>
  `${FILE_FOLDERS[folder]}/${encodeURIComponent(organizationId)}/${name}-${randomBytes(16).toString('hex')}`;
