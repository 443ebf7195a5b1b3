import { ServiceError, TransportError } from './errors.js';

export interface RetryOptions {
  /** Attempts in all, the first one included (default 3); 1 never retries. */
  attempts?: number | undefined;
  /** The first retry waits up to this long (default 100 ms); each next one up to twice as long as the one before. */
  baseDelayMs?: number | undefined;
  /** No wait is longer than this (default 2000 ms); a 429 that asks for a longer one is not retried. */
  maxDelayMs?: number | undefined;
}

export type RetrySettings = { [Key in keyof RetryOptions]-?: number };

export const DEFAULT_RETRY: RetrySettings = { attempts: 3, baseDelayMs: 100, maxDelayMs: 2000 };

/** The options with a default for each one left out (or undefined); `false` is a single attempt. */
export const retrySettings = (retry: RetryOptions | false | undefined): RetrySettings => {
  const given: RetryOptions = retry === false ? { attempts: 1 } : (retry ?? {});
  return {
    attempts: given.attempts ?? DEFAULT_RETRY.attempts,
    baseDelayMs: given.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
    maxDelayMs: given.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
  };
};

/**
 * How long to wait before retry number `retry` (1 for the first): "full jitter", a random time
 * up to the capped exponential step, so that clients refused together do not come back together.
 */
export const backoffDelay = (retry: number, options: RetrySettings, random = Math.random): number =>
  Math.floor(random() * Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1)));

/**
 * How long to wait before retry number `retry`, or undefined to give up at once. A 429 that says
 * how long to wait gets exactly that, since an earlier retry would be refused again; when that is
 * longer than `maxDelayMs` the caller gets the 429 (with its `retryAfterMs`) instead of a sleep
 * longer than they allowed. Every other retried failure gets backoffDelay.
 */
export const retryDelay = (
  error: unknown,
  retry: number,
  options: RetrySettings,
  random = Math.random,
): number | undefined => {
  const asked = error instanceof ServiceError ? error.retryAfterMs : undefined;
  if (asked === undefined) return backoffDelay(retry, options, random);
  return asked <= options.maxDelayMs ? asked : undefined;
};

/** fetch's failures that mean nothing was sent: no connection, no address. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
const causeCode = (error: Error): unknown =>
  error.cause instanceof Error ? (error.cause.cause as { code?: unknown } | undefined)?.code : undefined;

/**
 * Failures after which the request may have been applied: no answer (but a connection refused or
 * a name not found, which sent nothing), or a 503, the service's own included, which a deadline or
 * a lost connection to DynamoDB can bring after the write was made. A 429 was refused before any work.
 */
export const outcomeUnknown = (error: unknown): boolean =>
  (error instanceof TransportError && error.kind === 'network' && !NOT_SENT.has(causeCode(error) as string)) ||
  (error instanceof ServiceError && error.status === 'UNAVAILABLE');

/**
 * Failures the API says are safe to repeat: UNAVAILABLE (503, or API Gateway's timed-out
 * function) and RESOURCE_EXHAUSTED (429, or API Gateway's throttling), and requests that got no
 * answer at all. A call that is not `repeatable` (NOT_REPEATABLE: once applied, the same request
 * does something else) is resent only when the first cannot have been applied. Never another
 * 4xx, ABORTED (409) included: the same request would be refused the same way.
 */
export const isRetryable = (error: unknown, repeatable = true): boolean =>
  ((error instanceof ServiceError && error.retryable) ||
    (error instanceof TransportError && error.kind === 'network')) &&
  (repeatable || !outcomeUnknown(error));

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
