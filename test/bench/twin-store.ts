import { fileURLToPath } from 'node:url';
import { timeoutSecondsOf } from '#service/functions.js';
import { functionSpecOf } from '#service/routes.js';
import { MAX_ENTRIES_PER_REQUEST } from '#shared/api/identifiers.js';
import { operationById } from '#tools/openapi/operations.js';
import { runChild } from './child.js';
import { progress } from './progress.js';
import { goal, type Section, section } from './report.js';
import { fmtMs, fmtNum, fmtRatio, median } from './stats.js';

const SET = operationById('setConfig');
const DEADLINE_MS = timeoutSecondsOf(functionSpecOf(SET)) * 1000;
/** The largest set the API accepts: the default size here. */
const LARGEST_ENTRIES = MAX_ENTRIES_PER_REQUEST;
/**
 * The data directory's set may take this much longer than memory's: 1.74x when SQLite synced at
 * each commit, 1.10x to 1.32x since (a run moves by some 0.15x with the machine's other work).
 */
const RATIO_GOAL = 1.4;

type Mode = 'memory' | 'data directory';

export interface TwinStoreOptions {
  users: number;
  documents: number;
  /** Runs of each mode, alternated so that the machine's load falls on both alike. */
  rounds: number;
}

const CHILD = fileURLToPath(new URL('./twin-store-child.ts', import.meta.url));

export interface TimedSet {
  status: number;
  ms: number;
}

/** One config/set through a fresh twin in a process of its own (one twin per process, as `npm start`). */
const timeSet = (mode: Mode, userCount: number, documentCount: number): Promise<TimedSet> =>
  runChild<TimedSet>(CHILD, [mode === 'memory' ? 'memory' : 'disk', String(userCount), String(documentCount)]);

/**
 * The twin's store: the same config/set through `npm start`'s runtime, set-config's deadline
 * included, in memory and with a data directory (DynamoDB Local's SQLite file), each on an
 * empty store. By default the largest set the API
 * accepts, whose answer within the deadline is the twin's promise; DynamoDB Local's own speed is
 * not DynamoDB's, and keeping the data should cost little more than not keeping it.
 */
export const twinStoreBench = async ({
  users: userCount,
  documents: documentCount,
  rounds,
}: TwinStoreOptions): Promise<Section[]> => {
  if (!(Number.isInteger(rounds) && rounds >= 1 && userCount >= 1 && documentCount >= 1)) {
    throw new Error(
      `twin-store needs at least one round of a set of at least 1 x 1 (got ${rounds} x ${userCount}x${documentCount})`,
    );
  }
  const s = section('twin-store', "The twin's store: config/set with a data directory and in memory");
  const entries = userCount * documentCount;
  const runs: Record<Mode, TimedSet[]> = { memory: [], 'data directory': [] };
  const alive = progress(
    'twin-store',
    () => `${runs.memory.length + runs['data directory'].length} of ${2 * rounds} sets done`,
  );
  try {
    for (let round = 0; round < rounds; round++) {
      const order: Mode[] = round % 2 === 0 ? ['memory', 'data directory'] : ['data directory', 'memory'];
      for (const mode of order) runs[mode].push(await timeSet(mode, userCount, documentCount));
    }
  } finally {
    alive.stop();
  }
  const medianMs = (mode: Mode) => median(runs[mode].map((run) => run.ms));
  const perEntry = (ms: number) => `${fmtNum((ms / entries) * 1000, 0)} us`;
  s.tables.push({
    title: `config/set of ${fmtNum(userCount)} users x ${documentCount} documents (${fmtNum(entries)} entries), ${rounds} ${rounds === 1 ? 'run' : 'runs'} each, medians`,
    columns: ['store', 'time', 'per entry', 'runs (status, time)'],
    rows: (['memory', 'data directory'] as const).map((mode) => [
      mode,
      fmtMs(medianMs(mode)),
      perEntry(medianMs(mode)),
      runs[mode].map((run) => `${run.status} ${fmtMs(run.ms)}`).join(', '),
    ]),
  });
  const ratio = medianMs('data directory') / medianMs('memory');
  s.goals.push(
    goal(
      `the data directory costs at most ${RATIO_GOAL.toFixed(1)}x memory per set`,
      fmtRatio(ratio),
      `<= ${RATIO_GOAL.toFixed(1)}x`,
      ratio <= RATIO_GOAL,
    ),
  );
  const all = [...runs.memory, ...runs['data directory']];
  const slowest = Math.max(...all.map((run) => run.ms));
  const answered = all.every((run) => run.status === 200);
  s.goals.push(
    goal(
      `${entries === LARGEST_ENTRIES ? 'the largest set' : 'the set'} answers 200 within set-config's deadline, both ways, every run`,
      answered ? `slowest ${fmtMs(slowest)}` : `${all.filter((run) => run.status !== 200).length} run(s) not 200`,
      `200 within ${fmtMs(DEADLINE_MS)}`,
      answered && slowest <= DEADLINE_MS,
    ),
  );
  s.notes.push(
    'DynamoDB Local applies every write on one SQLite thread, so a busy machine moves both rows; past the deadline the answer is 503 with the per-user map.',
  );
  s.data = { entries, rounds, runs, ratio };
  return [s];
};
