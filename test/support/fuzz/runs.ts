import fc from 'fast-check';
import pMap from 'p-map';

/** Cases per property: 200 in `npm test`; `npm run soak` raises it with FUZZ_RUNS. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 200);

/**
 * Cases of a property over HTTP whose inputs are fuzzed in process too (the wire adds no new
 * input there, only the path to it): a quarter of FUZZ_RUNS.
 */
export const HTTP_FUZZ_RUNS = Math.ceil(FUZZ_RUNS / 4);

/**
 * Every run generates the same cases (FUZZ_SEED picks others): a failure in CI replays on a
 * laptop. fast-check prints the seed and the path of a failing case.
 */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261125);
fc.configureGlobal({ seed: FUZZ_SEED });

/** A Jest timeout that grows with FUZZ_RUNS (about 20 ms a case over HTTP on a busy 2-core machine). */
export const FUZZ_TIMEOUT_MS = 30_000 + FUZZ_RUNS * 20;

/**
 * Like fc.assert over an async property, but runs the generated cases `concurrency` at a time
 * (over HTTP one case waits mostly on I/O). No shrinking: a failure names the seed, the case
 * index and the input, and `FUZZ_SEED=<seed>` replays the same cases.
 */
export const assertConcurrently = async <T>(
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<unknown>,
  { numRuns = FUZZ_RUNS, concurrency = 8 }: { numRuns?: number; concurrency?: number } = {},
): Promise<void> => {
  const seed = FUZZ_SEED;
  const cases = fc.sample(arbitrary, { numRuns, seed });
  const failures: string[] = [];
  await pMap(
    cases.entries(),
    async ([index, value]) => {
      if (failures.length > 0) return;
      try {
        await predicate(value);
      } catch (error) {
        failures.push(`case ${index} (FUZZ_SEED=${seed}): ${(error as Error).message}\ninput: ${fc.stringify(value)}`);
      }
    },
    { concurrency },
  );
  if (failures.length > 0) throw new Error(failures[0]);
};
