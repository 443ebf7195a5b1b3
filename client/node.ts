// The main entry's code comes through './index.js' alone: the build leaves that import as it is,
// so this entry runs the main entry's classes rather than copies. Only the stateless retry
// helpers are bundled again.
import {
  type ClientOptions,
  type CreateExportInput,
  type CreateImportInput,
  createClient as createFetchClient,
  type ExportStatusResult,
  type ImportStatusResult,
  type ServiceClient,
  TransportError,
  type WaitOptions,
} from './index.js';
import { retrySettings } from './retry.js';
import { downloadFile, type ImportSource, prepareUpload, uploadFile } from './transfer.js';

/**
 * `@notification-preferences/client/node`: the client with the methods that read and write
 * files (node:fs), which the platform-neutral entry leaves out. Everything of the main entry is
 * exported from here too, the very same classes, so that `instanceof ServiceError` holds
 * whichever entry a program imports it from.
 */
export * from './index.js';
export { FileTransferError, type ImportSource } from './transfer.js';

/**
 * Waits for file jobs are longer than for a migration: a million rows take minutes. The client's
 * `timeoutMs` bounds its API calls, not the transfer of a file.
 */
const FILE_JOB_WAIT = { timeoutMs: 15 * 60_000, intervalMs: 1_000 };

const withFileJobDefaults = <Status>(options: WaitOptions<Status>): WaitOptions<Status> => ({
  ...options,
  timeoutMs: options.timeoutMs ?? FILE_JOB_WAIT.timeoutMs,
  intervalMs: options.intervalMs ?? FILE_JOB_WAIT.intervalMs,
});

export type NodeServiceClient = ServiceClient & {
  /**
   * Creates an export (createExport), waits until it ends (`onProgress` gets each status read),
   * streams its file to `path` and resolves with the final status. A failed export resolves too,
   * with nothing written: look at `status`. Waits at most `timeoutMs` (default 15 minutes).
   */
  exportToFile(
    input: CreateExportInput,
    path: string,
    options?: WaitOptions<ExportStatusResult>,
  ): Promise<ExportStatusResult>;
  /**
   * Creates an import (createImport), uploads `source` to it with its Content-Length (a path or
   * bytes; a stream with its `size`, or a stream without, which is first written to a temporary
   * file to learn it), waits until the import ends (`onProgress` gets each status read) and
   * resolves with the final status. A failed import resolves too: look at `status`, `error`, `errors`.
   * The file is read before the import is created: a path that is not there creates nothing.
   */
  importFile(
    input: CreateImportInput,
    source: ImportSource,
    options?: WaitOptions<ImportStatusResult>,
  ): Promise<ImportStatusResult>;
};

/** The typed client of the main entry, with exportToFile and importFile. */
export const createClient = (options: ClientOptions): NodeServiceClient => {
  const client = createFetchClient(options);
  const transfer = { fetch: options.fetch ?? globalThis.fetch, retry: retrySettings(options.retry) };

  const exportToFile = async (
    input: CreateExportInput,
    path: string,
    waitOptions: WaitOptions<ExportStatusResult> = {},
  ): Promise<ExportStatusResult> => {
    const { signal } = waitOptions;
    const { exportId } = await client.createExport(input, { signal });
    const final = await client.waitForExport(
      { organizationId: input.organizationId, exportId },
      withFileJobDefaults(waitOptions),
    );
    if (final.status !== 'completed') return final;
    if (final.downloadUrl === undefined) {
      throw new TransportError('invalid-response', `Export ${exportId} is completed but its status has no downloadUrl`);
    }
    await downloadFile(final.downloadUrl, path, { ...transfer, signal });
    return final;
  };

  const importFile = async (
    input: CreateImportInput,
    source: ImportSource,
    waitOptions: WaitOptions<ImportStatusResult> = {},
  ): Promise<ImportStatusResult> => {
    const { signal } = waitOptions;
    const upload = await prepareUpload(source);
    try {
      const { importId, uploadUrl } = await client.createImport(input, { signal });
      await uploadFile(uploadUrl, upload, { ...transfer, signal });
      return await client.waitForImport(
        { organizationId: input.organizationId, importId },
        withFileJobDefaults(waitOptions),
      );
    } finally {
      await upload.dispose();
    }
  };

  return { ...client, exportToFile, importFile };
};
