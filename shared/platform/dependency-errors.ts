/**
 * Tells a dependency outage (worth a retry by the caller: 503 UNAVAILABLE) from a bug
 * (500 INTERNAL). Throttling, 5xx answers, timeouts and network errors are transient.
 */
const TRANSIENT_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'UnprocessedItemsError',
]);

/** A transaction cancelled for capacity (the SDK does not retry a cancelled transaction). */
const TRANSIENT_CANCELLATIONS = new Set(['ProvisionedThroughputExceeded', 'ThrottlingError']);

const TRANSIENT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

interface SdkLikeError {
  name?: string;
  code?: string;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: number };
  CancellationReasons?: { Code?: string }[];
}

export const isTransientDependencyError = (error: unknown): boolean => {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as SdkLikeError;
  if (e.$retryable) return true;
  if (e.name && TRANSIENT_NAMES.has(e.name)) return true;
  if (e.code && TRANSIENT_CODES.has(e.code)) return true;
  if (e.name === 'TransactionCanceledException') {
    return (e.CancellationReasons ?? []).some((reason) => TRANSIENT_CANCELLATIONS.has(reason.Code ?? ''));
  }
  const status = e.$metadata?.httpStatusCode;
  return typeof status === 'number' && (status >= 500 || status === 429);
};

/** Thrown when a batch call still has unprocessed items after our own retries. */
export class UnprocessedItemsError extends Error {
  override readonly name = 'UnprocessedItemsError';
}
