import { beforeEach, describe, expect, test } from '@jest/globals';
import { DynamoRateLimitStore } from '#shared/auth/dynamo-rate-limit-store.js';
import { RateLimiter } from '#shared/auth/rate-limit.js';
import { uniqueId, useTestDynamo } from '../support/dynamo.js';

// The shared buckets against DynamoDB Local: a credential's rate holds across every instance of
// every function (each instance here is a limiter of its own with its own store object), and a
// warm instance costs well under one storage call per request.

const dynamo = useTestDynamo();
let table: string;
/** The running test's prefix of api keys: a fresh one each test, whose buckets are its own. */
let keys = '';

beforeEach(() => {
  table = dynamo.tables.limits;
  keys = uniqueId('test');
});

const LIMIT = { perSecond: 10, burst: 20 };
const T0 = 1_800_000_000_000;

describe('one bucket', () => {
  test('a full bucket gives its burst, then refuses with the time until a permit frees', async () => {
    const store = new DynamoRateLimitStore(dynamo.doc, table);
    expect(await store.take(`${keys}-ak_1`, 20, LIMIT, T0)).toEqual({ taken: 20, retryAfterMs: 0 });
    const refused = await store.take(`${keys}-ak_1`, 1, LIMIT, T0);
    expect(refused.taken).toBe(0);
    expect(refused.retryAfterMs).toBeCloseTo(100, 5); // one emission interval at 10/s
    // A second later, ten permits have come back; not more.
    expect(await store.take(`${keys}-ak_1`, 15, LIMIT, T0 + 1000)).toEqual({ taken: 10, retryAfterMs: 0 });
    expect((await store.take(`${keys}-ak_1`, 1, LIMIT, T0 + 1000)).taken).toBe(0);
  });

  test("credentials have buckets of their own: one emptied leaves the other's whole", async () => {
    const store = new DynamoRateLimitStore(dynamo.doc, table);
    await store.take(`${keys}-ak_busy`, 20, LIMIT, T0);
    expect((await store.take(`${keys}-ak_busy`, 1, LIMIT, T0)).taken).toBe(0);
    expect(await store.take(`${keys}-ak_quiet`, 20, LIMIT, T0)).toEqual({ taken: 20, retryAfterMs: 0 });
  });

  test('a bucket partly used gives what is left (a store that guessed wrong about it still gets it in one retry)', async () => {
    const one = new DynamoRateLimitStore(dynamo.doc, table);
    const other = new DynamoRateLimitStore(dynamo.doc, table);
    expect((await one.take(`${keys}-ak_1`, 5, LIMIT, T0)).taken).toBe(5);
    // `other` has never seen the bucket and guesses it is full: the condition fails, the item comes back.
    expect(await other.take(`${keys}-ak_1`, 20, LIMIT, T0)).toEqual({ taken: 15, retryAfterMs: 0 });
  });
});

test('instances that share a credential never admit more than its burst plus its rate over the time', async () => {
  let now = T0;
  const instances = Array.from(
    { length: 4 },
    () => new RateLimiter(new DynamoRateLimitStore(dynamo.doc, table), LIMIT, () => now),
  );
  let admitted = 0;
  // Ten seconds of 4 instances x 10 requests every 100 ms: 400 requests a second against a limit of 10.
  for (let step = 0; step < 100; step++) {
    now = T0 + step * 100;
    const answers = await Promise.all(
      instances.flatMap((limiter) => Array.from({ length: 10 }, () => limiter.admit(`${keys}-ak_shared`, LIMIT))),
    );
    admitted += answers.filter((answer) => answer.admitted).length;
  }
  const allowed = LIMIT.burst + (LIMIT.perSecond * (now - T0)) / 1000;
  expect(admitted).toBeLessThanOrEqual(allowed);
  // And it does not starve the credential: most of what the rate allows got through.
  expect(admitted).toBeGreaterThan(allowed * 0.8);
  // 4,000 calls to DynamoDB Local on an injected clock: a busy machine takes longer, the counts do not change.
}, 120_000);

test('a busy warm instance costs well under one storage call per request', async () => {
  let now = T0;
  let calls = 0;
  const store = new DynamoRateLimitStore(dynamo.doc, table);
  const counted = {
    take: (...args: Parameters<typeof store.take>) => {
      calls += 1;
      return store.take(...args);
    },
  };
  const limit = { perSecond: 200, burst: 400 };
  const limiter = new RateLimiter(counted, limit, () => now);
  let admitted = 0;
  // 150 requests a second for ten seconds, within the limit: all admitted.
  for (let request = 0; request < 1500; request++) {
    now = T0 + Math.floor((request * 1000) / 150);
    if ((await limiter.admit(`${keys}-ak_warm`, limit)).admitted) admitted += 1;
  }
  expect(admitted).toBe(1500);
  expect(calls / admitted).toBeLessThan(0.1);
});
