import { operationById } from '#tools/openapi/operations.js';
import type { CallCounter, CallSummary } from './counting.js';
import { cpuSecondsSince } from './lambda-cpu.js';
import { fmtMs, fmtNum, median } from './stats.js';

/**
 * What the resolve sections share: one config/resolve request timed (wall, this process's CPU,
 * its storage calls), and two requests compared over paired rounds taking turns, so that
 * machine noise hits both alike.
 */
export type Call = (path: string, data: unknown) => Promise<{ status: number; text: string }>;

export interface Run {
  cpuSeconds: number;
  ms: number;
  summary: CallSummary;
}

export interface Pair {
  base: Run;
  measured: Run;
}

const RESOLVE = operationById('resolveConfig').path;

/** A call that must answer 200 (the sections' set-up and their measured requests). */
export const mustCall =
  (call: Call) =>
  async (path: string, data: unknown): Promise<void> => {
    const response = await call(path, data);
    if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status} ${response.text.slice(0, 300)}`);
  };

/**
 * `rounds` pairs of resolves of `base` and `measured`, in turns (A then B, B then A), after one
 * warm-up of each (the function's credential cache and code paths).
 */
export const pairedResolves = async (
  call: Call,
  counter: CallCounter,
  { base, measured, rounds }: { base: unknown; measured: unknown; rounds: number },
): Promise<Pair[]> => {
  const must = mustCall(call);
  const timed = async (data: unknown): Promise<Run> => {
    const from = counter.mark();
    const cpu = process.cpuUsage();
    const started = performance.now();
    await must(RESOLVE, data);
    return { ms: performance.now() - started, cpuSeconds: cpuSecondsSince(cpu), summary: counter.summary(from) };
  };
  await timed(base);
  await timed(measured);
  const pairs: Pair[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      const first = await timed(base);
      pairs.push({ base: first, measured: await timed(measured) });
    } else {
      const first = await timed(measured);
      pairs.push({ base: await timed(base), measured: first });
    }
  }
  return pairs;
};

/** Read calls beyond the credential's. */
export const readsOf = (run: Run): number => run.summary.reads - run.summary.credentialReads;

/** One row of a section's table: medians of time and CPU, the most read calls (and keys read). */
export const pairRow = (name: string, pairs: Pair[], side: keyof Pair, { keys = false } = {}): string[] => [
  name,
  fmtMs(median(pairs.map((p) => p[side].ms))),
  fmtMs(median(pairs.map((p) => p[side].cpuSeconds * 1000))),
  fmtNum(Math.max(...pairs.map((p) => readsOf(p[side])))),
  ...(keys ? [fmtNum(Math.max(...pairs.map((p) => p[side].summary.keysRead)))] : []),
];

/** The median over the pairs of the measured run's CPU against the base run's. */
export const cpuRatioOf = (pairs: Pair[]): number =>
  median(pairs.map((p) => p.measured.cpuSeconds / p.base.cpuSeconds));
