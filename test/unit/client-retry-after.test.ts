import { afterEach, beforeEach, describe, expect, jest, test } from '@jest/globals';
import { createClient, ServiceError } from '#client/index.js';

// How long the client waits between attempts, on a fake clock: a 429 that says how long to wait
// (Retry-After header, details.retryAfterSeconds) is retried exactly then, or not at all when
// that is longer than the caller allows; everything else keeps the jittered backoff.

interface Scripted {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A fetch that answers from a list (the last answer repeats) and records when each request came. */
const scriptedFetch = (answers: Scripted[]) => {
  const sentAt: number[] = [];
  const fetch = (async () => {
    sentAt.push(Date.now());
    const answer = answers[Math.min(sentAt.length, answers.length) - 1] as Scripted;
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: answer.headers ?? {} });
  }) as typeof globalThis.fetch;
  return { fetch, sentAt };
};

const success = { status: 200, body: { result: { status: 'success', message: 'ok', data: [] } } };
const throttled = (retryAfterSeconds?: unknown, header?: string): Scripted => ({
  status: 429,
  body: {
    error: {
      message: 'Too many requests for this credential.',
      status: 'RESOURCE_EXHAUSTED',
      ...(retryAfterSeconds === undefined ? {} : { details: { retryAfterSeconds } }),
    },
  },
  ...(header === undefined ? {} : { headers: { 'retry-after': header } }),
});
const gatewayThrottled: Scripted = { status: 429, body: { message: 'Too Many Requests' } };
const base = { baseUrl: 'http://api.test', apiKey: 'ak_1', token: 'st_secret' };
const input = { organizationId: 'acme', userId: 'alice' };

beforeEach(() => {
  // Only the timers and Date: Response bodies need the real microtask queue.
  jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'], now: 1_000_000 });
  // Backoff draws the whole step: a retry without a hint comes after baseDelayMs.
  jest.spyOn(Math, 'random').mockReturnValue(0.999_999);
});
afterEach(() => {
  jest.useRealTimers();
  jest.restoreAllMocks();
});

/** Starts the call and lets it run `ms` of fake time; `settled` tells whether it has ended. */
const start = (promise: Promise<unknown>) => {
  const outcome = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  let settled = false;
  void outcome.then(() => {
    settled = true;
  });
  return { outcome, settled: () => settled };
};

describe('a 429 that says how long to wait', () => {
  test.each([
    ['details.retryAfterSeconds', throttled(1.5), 1_500],
    ['the Retry-After header', throttled(undefined, '2'), 2_000],
    ['both: the longer of the two', throttled(1, '3'), 3_000],
    ['zero: at once', throttled(0), 0],
  ])('%s: the retry comes exactly that long after, not after the backoff', async (_name, refusal, waitMs) => {
    const { fetch, sentAt } = scriptedFetch([refusal, success]);
    // The backoff alone would retry after 10 ms.
    const client = createClient({ ...base, fetch, retry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 5_000 } });
    const call = start(client.getConfig(input));
    if (waitMs > 0) {
      await jest.advanceTimersByTimeAsync(waitMs - 1);
      expect(sentAt).toHaveLength(1);
    }
    await jest.advanceTimersByTimeAsync(1);
    expect(sentAt.map((at) => at - (sentAt[0] as number))).toEqual([0, waitMs]);
    expect(await call.outcome).toEqual({ value: [] });
  });

  test('a wait longer than maxDelayMs is not slept: the caller gets the 429 at once, with retryAfterMs', async () => {
    const { fetch, sentAt } = scriptedFetch([throttled(30, '30'), success]);
    const client = createClient({ ...base, fetch, retry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 5_000 } });
    const call = start(client.getConfig(input));
    await jest.advanceTimersByTimeAsync(0);
    expect(call.settled()).toBe(true);
    const { error } = (await call.outcome) as { error: ServiceError };
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ status: 'RESOURCE_EXHAUSTED', httpStatus: 429, retryAfterMs: 30_000 });
    expect(sentAt).toHaveLength(1);
  });

  test("a wait that ends after the call's deadline is not slept either", async () => {
    const { fetch, sentAt } = scriptedFetch([throttled(2), success]);
    const client = createClient({ ...base, fetch, retry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 5_000 } });
    const call = start(client.getConfig(input, { deadlineMs: 1_000 }));
    await jest.advanceTimersByTimeAsync(0);
    expect(call.settled()).toBe(true);
    expect(await call.outcome).toMatchObject({ error: { status: 'RESOURCE_EXHAUSTED', retryAfterMs: 2_000 } });
    expect(sentAt).toHaveLength(1);
  });

  test('each retry waits what its own 429 asks, and the attempts still count', async () => {
    const { fetch, sentAt } = scriptedFetch([throttled(1), throttled(2), throttled(1)]);
    const client = createClient({ ...base, fetch, retry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 5_000 } });
    const call = start(client.getConfig(input));
    await jest.advanceTimersByTimeAsync(10_000);
    expect(await call.outcome).toMatchObject({ error: { status: 'RESOURCE_EXHAUSTED' } });
    expect(sentAt.map((at) => at - (sentAt[0] as number))).toEqual([0, 1_000, 3_000]);
  });
});

describe('everything else keeps the backoff', () => {
  test.each([
    ["API Gateway's 429 (no hint)", gatewayThrottled],
    ['a 429 with an unreadable hint', throttled(-1, 'soon')],
    [
      'a 503 with a Retry-After header',
      {
        status: 503,
        body: { error: { message: 'Try again.', status: 'UNAVAILABLE' } },
        headers: { 'retry-after': '30' },
      },
    ],
  ])('%s: retried after the backoff step', async (_name, refusal) => {
    const { fetch, sentAt } = scriptedFetch([refusal, success]);
    const client = createClient({ ...base, fetch, retry: { attempts: 3, baseDelayMs: 100, maxDelayMs: 5_000 } });
    const call = start(client.getConfig(input));
    await jest.advanceTimersByTimeAsync(98);
    expect(sentAt).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(await call.outcome).toEqual({ value: [] });
    expect(sentAt.map((at) => at - (sentAt[0] as number))).toEqual([0, 99]);
  });

  test('409 ABORTED is never retried, even when it carries a wait', async () => {
    const aborted = {
      status: 409,
      body: {
        error: { message: 'expectedVersion 3 is out of date.', status: 'ABORTED', details: { retryAfterSeconds: 1 } },
      },
      headers: { 'retry-after': '1' },
    };
    const { fetch, sentAt } = scriptedFetch([aborted, success]);
    const client = createClient({ ...base, fetch, retry: { attempts: 5, baseDelayMs: 10, maxDelayMs: 5_000 } });
    const call = start(client.getConfig(input));
    await jest.advanceTimersByTimeAsync(10_000);
    const { error } = (await call.outcome) as { error: ServiceError };
    expect(error).toMatchObject({ status: 'ABORTED', httpStatus: 409, retryable: false });
    expect(sentAt).toHaveLength(1);
  });
});
