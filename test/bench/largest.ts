import { fileURLToPath } from 'node:url';
import { startEmbeddedDynamo } from '#local/dynamo.js';
import { memoryOf, timeoutSecondsOf } from '#service/functions.js';
import { functionSpecOf } from '#service/routes.js';
import { MAX_ENTRIES_PER_REQUEST } from '#shared/api/identifiers.js';
import { MAX_HTTP_TIMEOUT_SECONDS } from '#shared/platform/route.js';
import { operationById } from '#tools/openapi/operations.js';
import { runChild } from './child.js';
import { FULL_VCPU_MB, projectedSeconds } from './lambda-cpu.js';
import type { LargestResult } from './largest-child.js';
import { goal, type Section, section } from './report.js';
import { startEmptyDynamo } from './servers/stubs.js';
import { fmtBytes, fmtMs, fmtNum } from './stats.js';

const CHILD = fileURLToPath(new URL('./largest-child.ts', import.meta.url));
const SPEC = functionSpecOf(operationById('setConfig'));
const MEMORY_MB = memoryOf(SPEC);
const TIMEOUT_S = timeoutSecondsOf(SPEC);
const RESET_SPEC = functionSpecOf(operationById('resetConfig'));
const RESET_MEMORY_MB = memoryOf(RESET_SPEC);
const RESET_TIMEOUT_S = timeoutSecondsOf(RESET_SPEC);

export interface LargestOptions {
  /** Entries per alternative way of writing. */
  sample: number;
  /** The request's size: the largest allowed (1,000 users x 5 documents) unless a quick run shrinks it. */
  users?: number;
  documents?: number;
}

/**
 * Section 3: the largest allowed request against its deadline at the deployed memory. The
 * handler runs in a process of its own (test/bench/largest-child.ts) and the store (the twin's
 * DynamoDB, local/dynamo.ts) outside it, so the CPU time measured is the function's alone.
 */
export const largestBench = async ({
  sample,
  users = 1000,
  documents = MAX_ENTRIES_PER_REQUEST / 1000,
}: LargestOptions): Promise<Section[]> => {
  const store = await startEmbeddedDynamo();
  const stub = await startEmptyDynamo();
  try {
    const result = await runChild<LargestResult>(CHILD, [
      store.endpoint,
      stub.endpoint,
      String(sample),
      String(users),
      String(documents),
    ]);
    return [report(result, users, documents)];
  } finally {
    await stub.close();
    await store.close();
  }
};

const report = (r: LargestResult, users: number, documents: number): Section => {
  const s = section(
    'largest',
    `3. Largest request: set ${fmtNum(users)} users x ${documents} documents (${fmtNum(r.entries)} entries)`,
  );
  const projected = projectedSeconds(r.cpuSeconds, MEMORY_MB);
  // A synchronous request stays small (contract, Identifiers and limits): the largest answers
  // within a quarter of what API Gateway allows an integration.
  const setLimit = MAX_HTTP_TIMEOUT_SECONDS / 4;
  const limit = TIMEOUT_S / 2;
  const perEntryUs = (r.cpuSeconds / r.entries) * 1e6;
  s.tables.push({
    title: "The real config/set handler in a process of its own, the store in another (CPU time is the handler's)",
    columns: [
      'entries',
      'status',
      'CPU time',
      'CPU/entry',
      `projected at ${MEMORY_MB} MB`,
      'time here',
      'writes',
      'retries',
      'response size',
      'RSS before',
      'peak RSS',
      'heap growth',
    ],
    rows: [
      [
        fmtNum(r.entries),
        r.status,
        `${r.cpuSeconds.toFixed(2)} s`,
        `${perEntryUs.toFixed(0)} us`,
        `${projected.toFixed(1)} s`,
        fmtMs(r.ms),
        fmtNum(r.summary.writes),
        fmtNum(r.summary.retries),
        fmtBytes(r.responseBytes),
        fmtBytes(r.rssBefore),
        fmtBytes(r.peakRss),
        fmtBytes(r.heapGrowth),
      ],
    ],
  });
  s.goals.push(
    goal(
      `projected time at ${MEMORY_MB} MB <= a quarter of API Gateway's ${MAX_HTTP_TIMEOUT_SECONDS} s`,
      `${projected.toFixed(1)} s (${r.cpuSeconds.toFixed(2)} s CPU here x ${FULL_VCPU_MB}/${MEMORY_MB})`,
      `<= ${setLimit} s`,
      projected <= setLimit,
    ),
    goal('answered 200', String(r.status), '200', r.status === 200),
    // Each entry written once, by its own conditional UpdateItem (1 write unit, items < 1 KB).
    goal(
      'writes per entry (write units) = 1',
      `${fmtNum(r.summary.itemsWritten)} in ${fmtNum(r.summary.writes)} calls: ${(r.summary.itemsWritten / r.entries).toFixed(4)}`,
      '1.0000',
      r.summary.itemsWritten === r.entries,
    ),
    goal(
      `time here, against DynamoDB Local (the twin's store) <= half the ${TIMEOUT_S} s timeout`,
      fmtMs(r.ms),
      `<= ${limit} s`,
      r.ms <= limit * 1000,
    ),
    goal(
      `peak RSS of the function's process <= its ${MEMORY_MB} MB`,
      fmtBytes(r.peakRss),
      `<= ${MEMORY_MB} MB`,
      r.peakRss <= MEMORY_MB * 1024 * 1024,
    ),
  );
  // The largest reset (the same users and documents), projected from its samples.
  const resetLimit = RESET_TIMEOUT_S / 2;
  const resetRows = r.resets.map((sample) => {
    const perEntry = sample.cpuSeconds / sample.entries;
    return { sample, perEntry, projected: projectedSeconds(perEntry * r.entries, RESET_MEMORY_MB) };
  });
  s.tables.push({
    title: `config/reset of the same request (${fmtNum(r.entries)} entries, every channel), its real handler on samples: CPU per entry, and the whole projected at its ${RESET_MEMORY_MB} MB`,
    columns: ['sample', 'entries', 'calls', 'CPU/entry', `projected ${fmtNum(r.entries)} entries`, 'time here'],
    rows: resetRows.map(({ sample, perEntry, projected }) => [
      sample.name,
      fmtNum(sample.entries),
      fmtNum(sample.calls),
      `${(perEntry * 1e6).toFixed(0)} us`,
      `${projected.toFixed(1)} s`,
      fmtMs(sample.ms),
    ]),
  });
  for (const { sample, projected } of resetRows) {
    s.goals.push(
      goal(
        `reset of the largest request, ${sample.name}: projected time at ${RESET_MEMORY_MB} MB <= half the ${RESET_TIMEOUT_S} s timeout`,
        `${projected.toFixed(1)} s`,
        `<= ${resetLimit} s`,
        projected <= resetLimit,
      ),
    );
  }
  const base = r.alternatives[0];
  s.tables.push({
    title: `Ways of writing the same entries, ${fmtNum(base?.entries ?? 0)} each, sent to ${r.alternativesTarget === 'store' ? 'the store' : 'a stub that answers {} (the store has no transactions)'}: client CPU per entry, and the largest request projected from it`,
    columns: [
      'way',
      'entries',
      'calls',
      'CPU/entry',
      'x today',
      `projected ${fmtNum(r.entries)} entries at ${MEMORY_MB} MB`,
      `<= ${setLimit} s`,
      'time here',
    ],
    rows: r.alternatives.map((a) => {
      const perEntry = a.cpuSeconds / a.entries;
      const whole = projectedSeconds(perEntry * r.entries, MEMORY_MB);
      return [
        a.name,
        fmtNum(a.entries),
        fmtNum(a.calls),
        `${(perEntry * 1e6).toFixed(0)} us`,
        base ? (perEntry / (base.cpuSeconds / base.entries)).toFixed(2) : 'n/a',
        `${whole.toFixed(1)} s`,
        whole <= setLimit ? 'yes' : 'no',
        fmtMs(a.ms),
      ];
    }),
  });
  s.notes.push(
    `Projection: Lambda gives 1 vCPU at ${FULL_VCPU_MB} MB and proportionally less below, so CPU seconds measured here take ${FULL_VCPU_MB}/${MEMORY_MB} = ${(FULL_VCPU_MB / MEMORY_MB).toFixed(2)} times as long in the ${MEMORY_MB} MB function (its memory and timeout from the stack's definition, service/functions.ts and the route). This machine's core may be faster or slower than Lambda's; network waits overlap (32 writes in flight) and are not counted.`,
    "CPU time is process.cpuUsage() of the handler's process around the one request, after a small warm-up request (credential read, SDK set-up). Its memory includes the TypeScript loader: an upper bound for the function.",
    'The alternatives send the exact update the service sends for an entry (captured from DynamoPreferenceStore); TransactWriteItems is atomic per call (a call fails whole) and costs 2 WCU per item; BatchWriteItem replaces whole items, so it cannot keep the channels another request set, and is shown for its cost only.',
  );
  s.data = {
    ...r,
    memoryMb: MEMORY_MB,
    timeoutSeconds: TIMEOUT_S,
    projectedSeconds: projected,
    limitSeconds: setLimit,
  };
  return s;
};
