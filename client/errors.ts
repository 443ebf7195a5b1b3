import { ERROR_HTTP_STATUS, type ErrorStatus } from './error-statuses.js';
import type { MigrationStatusResult } from './operations.js';

export type { ErrorStatus };

/** `UNKNOWN`: an answer that is not the service's envelope, with an HTTP code the catalogue does not use. */
export type ServiceErrorStatus = ErrorStatus | 'UNKNOWN';

/**
 * The service (or API Gateway in front of it) refused the request: any non-2xx answer, or an
 * `{error}` body. `status` is the envelope's status or, for a body that is not the envelope
 * (API Gateway's own 429/500/503), the status of that HTTP code.
 */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';

  constructor(
    readonly status: ServiceErrorStatus,
    message: string,
    readonly httpStatus: number,
    readonly details?: unknown,
    /** How long a 429 asked to wait before trying again (its `Retry-After`), in ms; undefined when it did not say. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  /**
   * UNAVAILABLE and RESOURCE_EXHAUSTED answers are safe to repeat as they are, later; the client
   * retries them. Not ABORTED: the request conflicts with the current state (another migration,
   * an out-of-date expectedVersion) and must be rebuilt from a fresh read first.
   */
  get retryable(): boolean {
    return this.status === 'UNAVAILABLE' || this.status === 'RESOURCE_EXHAUSTED';
  }
}

/**
 * No usable answer: the request did not get through (`network`: connection refused, DNS,
 * timeout, abort) or a 2xx answer was not the service's JSON envelope (`invalid-response`).
 */
export class TransportError extends Error {
  override readonly name = 'TransportError';

  constructor(
    readonly kind: 'network' | 'invalid-response',
    message: string,
    readonly httpStatus?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A wait for a job (waitForMigration, waitForExport, ...) saw no final status (completed or failed) in time. */
export class WaitTimeoutError<Status extends { status: string } = MigrationStatusResult> extends Error {
  override readonly name = 'WaitTimeoutError';

  constructor(
    /** The id of the job waited for. */
    readonly jobId: string,
    readonly timeoutMs: number,
    /** The last status read, if any. */
    readonly lastStatus?: Status,
    /** What the job is: Migration, Export, Import. */
    readonly job = 'Migration',
  ) {
    super(
      `${job} ${jobId} is still ${lastStatus?.status ?? 'unknown'} after ${timeoutMs} ms; it goes on: wait again or read its status later.`,
    );
  }

  /** The job's id under the name waitForMigration gave it first. */
  get migrationId(): string {
    return this.jobId;
  }
}

// The first status of each HTTP code (400 is INVALID_ARGUMENT, not FAILED_PRECONDITION).
const STATUS_BY_HTTP = new Map<number, ErrorStatus>();
for (const [status, httpStatus] of Object.entries(ERROR_HTTP_STATUS) as [ErrorStatus, number][]) {
  if (!STATUS_BY_HTTP.has(httpStatus)) STATUS_BY_HTTP.set(httpStatus, status);
}

export const statusForHttp = (httpStatus: number): ServiceErrorStatus => STATUS_BY_HTTP.get(httpStatus) ?? 'UNKNOWN';

export const isErrorStatus = (value: unknown): value is ErrorStatus =>
  typeof value === 'string' && Object.hasOwn(ERROR_HTTP_STATUS, value);
