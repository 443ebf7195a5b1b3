import { setTimeout as sleep } from 'node:timers/promises';

export interface BackoffOptions {
  attempts: number;
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { attempts: 8, baseMs: 25, maxMs: 1000 };

/** "Full jitter" exponential backoff, as the AWS Architecture Blog recommends. */
export const backoffDelay = (attempt: number, { baseMs, maxMs }: BackoffOptions): number =>
  Math.random() * Math.min(maxMs, baseMs * 2 ** attempt);

/**
 * Repeats a batch call on its unprocessed remainder (BatchGetItem / BatchWriteItem leave
 * items unprocessed under throttling) until nothing remains or the attempts run out.
 * Returns what is still unprocessed.
 */
export const drainWithBackoff = async <T>(
  initial: T | undefined,
  call: (pending: T) => Promise<T | undefined>,
  options: BackoffOptions = DEFAULT_BACKOFF,
): Promise<T | undefined> => {
  let pending = initial;
  for (let attempt = 0; pending !== undefined && attempt < options.attempts; attempt++) {
    if (attempt > 0) await sleep(backoffDelay(attempt, options));
    pending = await call(pending);
  }
  return pending;
};
