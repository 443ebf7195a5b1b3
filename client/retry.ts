import { ServiceError, TransportError } from './errors.js';

export interface RetryOptions {
  /** Attempts in all, the first one included (default 3); 1 never retries. */
  attempts?: number;
  /** The first retry waits up to this long (default 100 ms); each next one up to twice as long as the one before. */
  baseDelayMs?: number;
  /** No wait is longer than this (default 2000 ms). */
  maxDelayMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { attempts: 3, baseDelayMs: 100, maxDelayMs: 2000 };

/**
 * How long to wait before retry number `retry` (1 for the first): "full jitter", a random time
 * up to the capped exponential step, so that clients refused together do not come back together.
 */
export const backoffDelay = (retry: number, options: Required<RetryOptions>, random = Math.random): number =>
  Math.floor(random() * Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1)));

/**
 * Failures the API says are safe to repeat: 503 (UNAVAILABLE, or API Gateway's timed-out
 * function) and 429 (RESOURCE_EXHAUSTED, or API Gateway's throttling), and requests that got no
 * answer at all. Every operation is idempotent, so a request that may have been applied can be
 * sent again. Never another 4xx: the same request would be refused the same way.
 */
export const isRetryable = (error: unknown): boolean =>
  (error instanceof ServiceError && (error.httpStatus === 503 || error.httpStatus === 429)) ||
  (error instanceof TransportError && error.kind === 'network');

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** One signal that aborts when any of the given ones does (undefined when none is given). */
export const anySignal = (signals: (AbortSignal | undefined)[]): AbortSignal | undefined => {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  return present.length <= 1 ? present[0] : AbortSignal.any(present);
};
