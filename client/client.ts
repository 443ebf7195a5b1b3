import { type Answer, readAnswer } from './answer.js';
import { TransportError } from './errors.js';
import {
  type ExportStatusInput,
  type ExportStatusResult,
  type GetConfigInput,
  type GetConfigResult,
  IDEMPOTENCY_KEY,
  type ImportStatusInput,
  type ImportStatusResult,
  type MigrationStatusInput,
  type MigrationStatusResult,
  NOT_REPEATABLE,
  OPERATION_PATHS,
  type OperationId,
  type OperationInput,
  type OperationResult,
  type UserExportInput,
  type UserExportResult,
} from './operations.js';
import { anySignal, isRetryable, type RetryOptions, retryDelay, retrySettings, sleep } from './retry.js';
import type { ConfigItem, ExportRecord, GetConfigItemInput } from './types.js';
import { type WaitOptions, waitForStatus } from './wait.js';

// Types come from the generated plain TypeScript of client/operations.ts, so that the package's
// declarations stand alone; at run time the client needs nothing but `fetch`, those paths and
// the operations it must not resend (NOT_REPEATABLE) and those that take an Idempotency-Key.
export type { RetryOptions, WaitOptions };

export interface ClientOptions {
  /** Where the API lives, e.g. http://127.0.0.1:3000 or the stack's ApiUrl output. */
  baseUrl: string;
  apiKey: string;
  token: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch | undefined;
  /** Gives up on one attempt after this long (a TransportError of kind network, which is retried). */
  timeoutMs?: number | undefined;
  /** Retries of answers that say they are safe to retry (503, 429) and of requests that got no answer; `false` never retries. */
  retry?: RetryOptions | false | undefined;
}

export interface CallOptions {
  /** Stops the call, attempts and waits between them alike. */
  signal?: AbortSignal | undefined;
  /** The whole call, retries included, ends after this long; no retry starts that could not finish waiting before it. */
  deadlineMs?: number | undefined;
  /** Overrides the client's retry options for this call. */
  retry?: RetryOptions | false | undefined;
}

/** One method per operation, named by its operationId: `data` in, `result.data` out. */
export type OperationMethods = {
  [Id in OperationId]: (data: OperationInput<Id>, options?: CallOptions) => Promise<OperationResult<Id>>;
};

export type ServiceClient = OperationMethods & {
  /**
   * getConfig for one entry: the document's item, or the organization-level one without a
   * `documentId`. Resolves to that item itself, where getConfig resolves to a list of them.
   */
  getConfigItem(input: GetConfigItemInput, options?: CallOptions): Promise<ConfigItem>;
  /**
   * Reads the migration's status until it is `completed` or `failed`, and resolves with that
   * status (a failed migration resolves too: look at `status` and `error`).
   */
  waitForMigration(
    input: MigrationStatusInput,
    options?: WaitOptions<MigrationStatusResult>,
  ): Promise<MigrationStatusResult>;
  /**
   * Reads the export's status until it is `completed` (its `downloadUrl` then set) or `failed`,
   * and resolves with that status. In Node, exportToFile (`@notification-preferences/client/node`)
   * also downloads the file.
   */
  waitForExport(input: ExportStatusInput, options?: WaitOptions<ExportStatusResult>): Promise<ExportStatusResult>;
  /**
   * Reads the import's status until it is `completed` or `failed`, and resolves with that status
   * (`waiting_upload` goes on: the upload may still be arriving). In Node, importFile
   * (`@notification-preferences/client/node`) also uploads the file.
   */
  waitForImport(input: ImportStatusInput, options?: WaitOptions<ImportStatusResult>): Promise<ImportStatusResult>;
  /**
   * Every record of a user's export (exportUser), page after page: asks for the next page with
   * the previous one's `nextCursor` as the caller reads on, and ends after the last page.
   * `for await (const record of client.exportUserRecords({ organizationId, userId })) ...`
   */
  exportUserRecords(input: Omit<UserExportInput, 'cursor'>, options?: CallOptions): AsyncIterableIterator<ExportRecord>;
};

/**
 * A typed client with one method per operation of the API, and waitForMigration. Answers come
 * back as their `result.data`; every refusal is a ServiceError, every failure to get an answer
 * a TransportError. Answers that say they are safe to retry are retried: after the wait a 429
 * asks for, or with backoff.
 */
/** fetch's own message is only "fetch failed": its cause says why (ECONNREFUSED, ENOTFOUND, bad port...). */
const networkReason = (error: unknown): string => {
  const reason = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error ? error.cause : undefined;
  if (!(cause instanceof Error)) return reason;
  const code = (cause as { code?: unknown }).code;
  return `${reason} (${typeof code === 'string' ? code : cause.message})`;
};

/** Whether `data` sent to `id` may be sent again when the first may have been applied (NOT_REPEATABLE). */
const mayResend = (id: OperationId, data: unknown): boolean => {
  const rule = NOT_REPEATABLE[id];
  if (!rule) return true;
  const field = rule.onlyWith;
  return (
    field !== undefined &&
    (typeof data !== 'object' || data === null || (data as Record<string, unknown>)[field] === undefined)
  );
};

export const createClient = ({
  baseUrl,
  apiKey,
  token,
  fetch: fetchImpl,
  timeoutMs,
  retry: clientRetry,
}: ClientOptions): ServiceClient => {
  const base = baseUrl.replace(/\/+$/, '');
  const doFetch = fetchImpl ?? globalThis.fetch;

  const attempt = async (
    url: string,
    data: unknown,
    stop: AbortSignal | undefined,
    idempotencyKey: string | undefined,
  ): Promise<unknown> => {
    const signal = anySignal([stop, timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs)]);
    let answer: Answer;
    try {
      const response = await doFetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'x-service-api-key': apiKey,
          'x-service-auth-token': token,
          ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
        },
        body: JSON.stringify({ data }),
        ...(signal ? { signal } : {}),
      });
      answer = {
        httpStatus: response.status,
        text: await response.text(),
        retryAfterHeader: response.headers.get('retry-after'),
      };
    } catch (error) {
      throw new TransportError('network', `POST ${url} failed: ${networkReason(error)}`, undefined, { cause: error });
    }
    return readAnswer(answer, url);
  };

  const call = async (
    path: string,
    data: unknown,
    options: CallOptions = {},
    repeatable = true,
    idempotent = false,
  ): Promise<unknown> => {
    const url = `${base}${path}`;
    // One key for every attempt of this call: a repeat after a lost answer answers what the first did.
    const idempotencyKey = idempotent ? globalThis.crypto.randomUUID() : undefined;
    const retry = retrySettings(options.retry ?? clientRetry);
    const { deadlineMs } = options;
    const endsAt = deadlineMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + deadlineMs;
    const stop = anySignal([options.signal, deadlineMs === undefined ? undefined : AbortSignal.timeout(deadlineMs)]);
    for (let attempts = 1; ; attempts++) {
      try {
        return await attempt(url, data, stop, idempotencyKey);
      } catch (error) {
        if (attempts >= retry.attempts || !isRetryable(error, repeatable) || stop?.aborted) throw error;
        const delay = retryDelay(error, attempts, retry);
        // A wait longer than the caller allows, or a retry that would start after the deadline,
        // cannot help: the caller gets the answer now.
        if (delay === undefined || Date.now() + delay >= endsAt) throw error;
        await sleep(delay, stop).catch(() => {
          throw error;
        });
      }
    }
  };

  const waitForMigration = (input: MigrationStatusInput, options?: WaitOptions<MigrationStatusResult>) =>
    waitForStatus(
      (signal) => call(OPERATION_PATHS.getMigrationStatus, input, { signal }) as Promise<MigrationStatusResult>,
      'Migration',
      input.migrationId,
      options,
    );
  const waitForExport = (input: ExportStatusInput, options?: WaitOptions<ExportStatusResult>) =>
    waitForStatus(
      (signal) => call(OPERATION_PATHS.getExportStatus, input, { signal }) as Promise<ExportStatusResult>,
      'Export',
      input.exportId,
      options,
    );
  const waitForImport = (input: ImportStatusInput, options?: WaitOptions<ImportStatusResult>) =>
    waitForStatus(
      (signal) => call(OPERATION_PATHS.getImportStatus, input, { signal }) as Promise<ImportStatusResult>,
      'Import',
      input.importId,
      options,
    );

  const getConfigItem = async (
    { documentId, ...rest }: GetConfigItemInput,
    options?: CallOptions,
  ): Promise<ConfigItem> => {
    const input: GetConfigInput = typeof documentId === 'string' ? { ...rest, documentIds: [documentId] } : rest;
    const items = (await call(OPERATION_PATHS.getConfig, input, options)) as GetConfigResult;
    const [item] = items;
    if (items.length !== 1 || !item) {
      const url = `${base}${OPERATION_PATHS.getConfig}`;
      throw new TransportError('invalid-response', `${url} answered ${items.length} items where one was asked for`);
    }
    return item;
  };

  const methods = Object.fromEntries(
    Object.entries(OPERATION_PATHS).map(([id, path]) => [
      id,
      (data: unknown, options?: CallOptions) =>
        call(path, data, options, mayResend(id as OperationId, data), IDEMPOTENCY_KEY[id as OperationId] === true),
    ]),
  ) as OperationMethods;
  async function* exportUserRecords(
    input: Omit<UserExportInput, 'cursor'>,
    options?: CallOptions,
  ): AsyncIterableIterator<ExportRecord> {
    let cursor: string | undefined;
    do {
      const page = (await call(
        OPERATION_PATHS.exportUser,
        cursor === undefined ? input : { ...input, cursor },
        options,
      )) as UserExportResult;
      yield* page.records;
      cursor = page.nextCursor;
    } while (cursor !== undefined);
  }

  return { ...methods, getConfigItem, waitForMigration, waitForExport, waitForImport, exportUserRecords };
};
