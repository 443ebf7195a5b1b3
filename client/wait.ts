import { ServiceError, TransportError, WaitTimeoutError } from './errors.js';
import { anySignal, sleep } from './retry.js';

export interface WaitOptions<Status = unknown> {
  /** Rejects with a WaitTimeoutError after this long (default 60 s); the job itself goes on. */
  timeoutMs?: number | undefined;
  /** Time between two status reads (default 500 ms). */
  intervalMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Called with each status read, the final one included. */
  onProgress?: ((status: Status) => void) | undefined;
}

/** The states after which a job's status no longer changes. */
const FINAL = new Set(['completed', 'failed']);

/**
 * Reads a job's status until it is `completed` or `failed`, and resolves with that status (a
 * failed job resolves too: the caller looks at `status`). `job` names the job in the timeout's
 * message ("Export 01J...").
 */
export const waitForStatus = async <Status extends { status: string }>(
  read: (signal: AbortSignal | undefined) => Promise<Status>,
  job: string,
  jobId: string,
  { timeoutMs = 60_000, intervalMs = 500, signal, onProgress }: WaitOptions<Status> = {},
): Promise<Status> => {
  const timeout = AbortSignal.timeout(timeoutMs);
  const stop = anySignal([signal, timeout]);
  let last: Status | undefined;
  // Once the time is up, the error says so, whatever the read or the wait was doing then.
  const stopped = (error: unknown) => {
    if (timeout.aborted && !signal?.aborted) return new WaitTimeoutError(jobId, timeoutMs, last, job);
    if (error instanceof ServiceError || error instanceof TransportError) return error;
    return new TransportError('network', `Waiting for ${job.toLowerCase()} ${jobId} was aborted`, undefined, {
      cause: error,
    });
  };
  for (;;) {
    try {
      last = await read(stop);
    } catch (error) {
      throw stopped(error);
    }
    onProgress?.(last);
    if (FINAL.has(last.status)) return last;
    await sleep(intervalMs, stop).catch((error) => {
      throw stopped(error);
    });
  }
};
