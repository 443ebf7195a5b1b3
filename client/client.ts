import { isErrorStatus, ServiceError, statusForHttp, TransportError, WaitTimeoutError } from './errors.js';
import {
  type MigrationStatusInput,
  type MigrationStatusResult,
  OPERATION_PATHS,
  type OperationId,
  type OperationInput,
  type OperationResult,
} from './operations.js';
import { anySignal, backoffDelay, DEFAULT_RETRY, isRetryable, type RetryOptions, sleep } from './retry.js';

// Types come from the generated plain TypeScript of client/operations.ts, so that the package's
// declarations stand alone; at run time the client needs nothing but `fetch` and those paths.
export type { RetryOptions };

export interface ClientOptions {
  /** Where the API lives, e.g. http://127.0.0.1:3000 or the stack's ApiUrl output. */
  baseUrl: string;
  apiKey: string;
  token: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Gives up on one attempt after this long (a TransportError of kind network, which is retried). */
  timeoutMs?: number;
  /** Retries of answers that say they are safe to retry (503, 429) and of requests that got no answer; `false` never retries. */
  retry?: RetryOptions | false;
}

export interface CallOptions {
  /** Stops the call, attempts and waits between them alike. */
  signal?: AbortSignal;
  /** The whole call, retries included, ends after this long; no retry starts that could not finish waiting before it. */
  deadlineMs?: number;
  /** Overrides the client's retry options for this call. */
  retry?: RetryOptions | false;
}

export interface WaitOptions {
  /** Rejects with a WaitTimeoutError after this long (default 60 s); the migration itself goes on. */
  timeoutMs?: number;
  /** Time between two status reads (default 500 ms). */
  intervalMs?: number;
  signal?: AbortSignal;
}

/** One method per operation, named by its operationId: `data` in, `result.data` out. */
export type OperationMethods = {
  [Id in OperationId]: (data: OperationInput<Id>, options?: CallOptions) => Promise<OperationResult<Id>>;
};

export type ServiceClient = OperationMethods & {
  /**
   * Reads the migration's status until it is `completed` or `failed`, and resolves with that
   * status (a failed migration resolves too: look at `status` and `error`).
   */
  waitForMigration(input: MigrationStatusInput, options?: WaitOptions): Promise<MigrationStatusResult>;
};

const snippet = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Turns an answer into its `result.data`, or throws the error it stands for. */
const readAnswer = (httpStatus: number, text: string, url: string): unknown => {
  let body: unknown;
  let json = true;
  try {
    body = JSON.parse(text);
  } catch {
    json = false;
  }
  const ok = httpStatus >= 200 && httpStatus < 300;
  const error = isObject(body) && isObject(body.error) ? body.error : undefined;
  if (error && isErrorStatus(error.status) && typeof error.message === 'string') {
    throw new ServiceError(error.status, error.message, httpStatus, error.details);
  }
  if (!ok) {
    // Not the service's envelope: API Gateway's own {message}, or a proxy's page.
    const message =
      isObject(body) && typeof body.message === 'string'
        ? body.message
        : `HTTP ${httpStatus} from ${url}${json ? '' : ` with a non-JSON body: ${snippet(text)}`}`;
    throw new ServiceError(statusForHttp(httpStatus), message, httpStatus);
  }
  const result = isObject(body) && isObject(body.result) ? body.result : undefined;
  if (result?.status !== 'success' || !('data' in result)) {
    throw new TransportError(
      'invalid-response',
      json
        ? `HTTP ${httpStatus} from ${url} is not a {result} envelope: ${snippet(text)}`
        : `HTTP ${httpStatus} from ${url} is not JSON: ${snippet(text)}`,
      httpStatus,
    );
  }
  return result.data;
};

const retryOptions = (retry: RetryOptions | false | undefined): Required<RetryOptions> =>
  retry === false ? { ...DEFAULT_RETRY, attempts: 1 } : { ...DEFAULT_RETRY, ...retry };

/**
 * A typed client with one method per operation of the API, and waitForMigration. Answers come
 * back as their `result.data`; every refusal is a ServiceError, every failure to get an answer
 * a TransportError. Answers that say they are safe to retry are retried with backoff.
 */
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

  const attempt = async (url: string, data: unknown, stop: AbortSignal | undefined): Promise<unknown> => {
    const signal = anySignal([stop, timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs)]);
    let httpStatus: number;
    let text: string;
    try {
      const response = await doFetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'x-service-api-key': apiKey,
          'x-service-auth-token': token,
        },
        body: JSON.stringify({ data }),
        ...(signal ? { signal } : {}),
      });
      httpStatus = response.status;
      text = await response.text();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new TransportError('network', `POST ${url} failed: ${reason}`, undefined, { cause: error });
    }
    return readAnswer(httpStatus, text, url);
  };

  const call = async (path: string, data: unknown, options: CallOptions = {}): Promise<unknown> => {
    const url = `${base}${path}`;
    const retry = retryOptions(options.retry ?? clientRetry);
    const { deadlineMs } = options;
    const endsAt = deadlineMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + deadlineMs;
    const stop = anySignal([options.signal, deadlineMs === undefined ? undefined : AbortSignal.timeout(deadlineMs)]);
    for (let attempts = 1; ; attempts++) {
      try {
        return await attempt(url, data, stop);
      } catch (error) {
        if (attempts >= retry.attempts || !isRetryable(error) || stop?.aborted) throw error;
        const delay = backoffDelay(attempts, retry);
        // A retry that would start after the deadline cannot help: the caller gets the answer now.
        if (Date.now() + delay >= endsAt) throw error;
        await sleep(delay, stop).catch(() => {
          throw error;
        });
      }
    }
  };

  const statusPath = OPERATION_PATHS.getMigrationStatus;
  const waitForMigration = async (
    input: MigrationStatusInput,
    { timeoutMs: waitMs = 60_000, intervalMs = 500, signal }: WaitOptions = {},
  ): Promise<MigrationStatusResult> => {
    const timeout = AbortSignal.timeout(waitMs);
    const stop = anySignal([signal, timeout]);
    let last: MigrationStatusResult | undefined;
    // Once the time is up, the error says so, whatever the read or the wait was doing then.
    const timedOut = (error: unknown) => {
      if (timeout.aborted && !signal?.aborted) return new WaitTimeoutError(input.migrationId, waitMs, last);
      if (error instanceof ServiceError || error instanceof TransportError) return error;
      return new TransportError('network', `Waiting for migration ${input.migrationId} was aborted`, undefined, {
        cause: error,
      });
    };
    for (;;) {
      try {
        last = (await call(statusPath, input, stop ? { signal: stop } : {})) as MigrationStatusResult;
      } catch (error) {
        throw timedOut(error);
      }
      if (last.status === 'completed' || last.status === 'failed') return last;
      await sleep(intervalMs, stop).catch((error) => {
        throw timedOut(error);
      });
    }
  };

  const methods = Object.fromEntries(
    Object.entries(OPERATION_PATHS).map(([id, path]) => [
      id,
      (data: unknown, options?: CallOptions) => call(path, data, options),
    ]),
  ) as OperationMethods;
  return { ...methods, waitForMigration };
};
