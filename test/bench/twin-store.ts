import { fileURLToPath } from 'node:url';
import { timeoutSecondsOf } from '#service/functions.js';
import { functionSpecOf } from '#service/routes.js';
import { MAX_DOCUMENT_IDS, MAX_USER_IDS } from '#shared/api/identifiers.js';
import { operationById } from '#tools/openapi/operations.js';
import { runChild } from './child.js';
import { progress } from './progress.js';
import { goal, type Section, section } from './report.js';
import { fmtMs, fmtNum, fmtRatio, median } from './stats.js';

const SET = operationById('setConfig');
const DEADLINE_MS = timeoutSecondsOf(functionSpecOf(SET)) * 1000;
/** The largest set the API accepts: what the per-entry time is projected to. */
const LARGEST_ENTRIES = MAX_USER_IDS * MAX_DOCUMENT_IDS;
/** The data directory's set may take this much longer than memory's (1.74x when SQLite synced at each commit). */
const RATIO_GOAL = 1.3;

type Mode = 'memory' | 'data directory';

export interface TwinStoreOptions {
  users: number;
  documents: number;
  /** Runs of each mode, alternated so that the machine's load falls on both alike. */
  rounds: number;
}

const CHILD = fileURLToPath(new URL('./twin-store-child.ts', import.meta.url));

/** One config/set through a fresh twin in a process of its own (one twin per process, as `npm start`). */
const timeSet = (mode: Mode, userCount: number, documentCount: number): Promise<number> =>
  runChild<number>(CHILD, [mode === 'memory' ? 'memory' : 'disk', String(userCount), String(documentCount)]);

/**
 * The twin's store: the same config/set through `npm start`'s runtime in memory and with a data
 * directory (DynamoDB Local's SQLite file, local/dynamodb-local-sqlite.xml), each on an empty
 * store. DynamoDB Local's own speed is not DynamoDB's; the goal is that keeping the data costs
 * little more than not keeping it.
 */
export const twinStoreBench = async ({
  users: userCount,
  documents: documentCount,
  rounds,
}: TwinStoreOptions): Promise<Section[]> => {
  const s = section('twin-store', "The twin's store: config/set with a data directory and in memory");
  const entries = userCount * documentCount;
  const times: Record<Mode, number[]> = { memory: [], 'data directory': [] };
  const alive = progress(
    'twin-store',
    () => `${times.memory.length + times['data directory'].length} of ${2 * rounds} sets done`,
  );
  try {
    for (let round = 0; round < rounds; round++) {
      const order: Mode[] = round % 2 === 0 ? ['memory', 'data directory'] : ['data directory', 'memory'];
      for (const mode of order) times[mode].push(await timeSet(mode, userCount, documentCount));
    }
  } finally {
    alive.stop();
  }
  const memory = median(times.memory);
  const onDisk = median(times['data directory']);
  const perEntry = (ms: number) => `${fmtNum((ms / entries) * 1000, 0)} us`;
  s.tables.push({
    title: `config/set of ${fmtNum(userCount)} users x ${documentCount} documents (${fmtNum(entries)} entries), ${rounds} ${rounds === 1 ? 'run' : 'runs'} each, medians`,
    columns: ['store', 'time', 'per entry', 'runs', `largest set (${fmtNum(LARGEST_ENTRIES)}) projected`],
    rows: (['memory', 'data directory'] as const).map((mode) => {
      const ms = median(times[mode]);
      return [
        mode,
        fmtMs(ms),
        perEntry(ms),
        times[mode].map((t) => fmtMs(t)).join(', '),
        fmtMs((ms / entries) * LARGEST_ENTRIES),
      ];
    }),
  });
  const ratio = onDisk / memory;
  s.goals.push(
    goal(
      'the data directory costs at most 1.3x memory per set',
      fmtRatio(ratio),
      `<= ${RATIO_GOAL.toFixed(1)}x`,
      ratio <= RATIO_GOAL,
    ),
  );
  s.notes.push(
    `The projection scales the median per entry to the largest set; set-config's deadline is ${fmtMs(DEADLINE_MS)}. DynamoDB Local applies every write on one SQLite thread, so a busy machine moves both columns.`,
  );
  s.data = { entries, rounds, times, ratio };
  return [s];
};
