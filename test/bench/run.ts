import './quiet.js';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SHARED_DYNAMODB_LOCAL_ENV } from '#local/dynamo.js';
import { freePort, startDynamoDbLocal } from '#local/dynamodb-local.js';
import { DEFAULT_IMPORT_WRITES_PER_SECOND } from '#shared/platform/environment.js';
import { logger } from '#shared/platform/logger.js';
import { bundleBench } from './bundles.js';
import { consentBench } from './consent.js';
import { devReloadBench } from './dev-reload.js';
import { importsBench } from './imports.js';
import { largestBench } from './largest.js';
import { migrationBench } from './migration.js';
import { rejectedBench } from './rejected.js';
import { machine, type RunInfo, renderText, type Section, writeResults } from './report.js';
import { storageBench } from './storage.js';
import { throughputBench } from './throughput.js';
import { twinStoreBench } from './twin-store.js';
import { webhooksBench } from './webhooks.js';

/**
 * The benchmark suite (`npm run bench`; `-- --full` for the full migration sizes and longer
 * throughput runs; `-- --only=storage,rejected,largest,twin-store,throughput,webhooks,migration,imports,dev-reload,bundles` to
 * run some sections; `storage` includes the dispatcher case). Other options: --connections=1,8,32
 * --seconds=2 --rounds=5 (throughput), --sample=3000 (entries per way of writing, largest),
 * --sizes=1000,5000 (migration), --twin-set=1000x5 and --twin-rounds=2 (twin-store), --saves=5 (dev-reload), --runs=20 and --functions=setConfig,getConfig (cold starts),
 * --invocations=2000 (refused requests, per case), --events=10000 (webhooks: events to 10 endpoints). Not a Jest suite: it reports
 * figures and scored goals (met or missed), it does not fail on them. Long steps print a
 * progress line on stderr every 5 s.
 */
const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));

const args = process.argv.slice(2);
const full = args.includes('--full');
// A few seconds a section at small sizes: what CI runs so that the bench cannot break unseen.
// Its figures mean little on a busy machine, so its goals are printed but not scored.
const quick = args.includes('--quick');
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
/** The sections, in the order they run (each `run` below names one). */
const SECTIONS = [
  'storage',
  'rejected',
  'largest',
  'twin-store',
  'consent',
  'throughput',
  'webhooks',
  'migration',
  'imports',
  'dev-reload',
  'bundles',
] as const;
type SectionName = (typeof SECTIONS)[number];
const unknown = only?.filter((name) => !(SECTIONS as readonly string[]).includes(name)) ?? [];
if (unknown.length > 0) {
  // A misspelt section would otherwise run nothing and report no goal missed.
  console.error(`[bench] unknown section(s): ${unknown.join(', ')}; the sections are ${SECTIONS.join(', ')}`);
  process.exit(2);
}
const wanted = (name: string) => !only || only.includes(name);

/** The options with a value (`--name=value`), as `option` reads them below. */
const VALUE_OPTIONS = [
  'only',
  'connections',
  'seconds',
  'rounds',
  'sample',
  'sizes',
  'twin-set',
  'twin-rounds',
  'saves',
  'runs',
  'functions',
  'invocations',
  'events',
];
const USAGE = `usage: npm run bench -- [--full | --quick] [--only=<section>,...] [--<option>=<value> ...]
  sections: ${SECTIONS.join(', ')}
  options:  ${VALUE_OPTIONS.filter((name) => name !== 'only').join(', ')} (docs/development.md, The bench)`;
const unknownArgs = args.filter(
  (a) => a !== '--full' && a !== '--quick' && !VALUE_OPTIONS.some((name) => a.startsWith(`--${name}=`)),
);
if (unknownArgs.includes('--help') || unknownArgs.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
if (unknownArgs.length > 0) {
  // `--only storage` with a space, say: refused, rather than a run of every section.
  console.error(`[bench] unknown argument(s): ${unknownArgs.join(' ')}\n${USAGE}`);
  process.exit(2);
}

const main = async () => {
  logger.setLogLevel('SILENT');
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const loadAtStart = loadavg()[0]?.toFixed(2) ?? 'n/a';
  const { node, cpus } = machine();
  console.log(
    `[bench] ${full ? 'full' : quick ? 'quick' : 'default'} run, Node ${node}, ${cpus}, load average ${loadAtStart}`,
  );
  const sections: Section[] = [];
  const run = async (name: SectionName, bench: () => Promise<Section[]>) => {
    if (!wanted(name)) return;
    const t = performance.now();
    console.log(`\n[bench] ${name}...`);
    const result = await bench();
    for (const s of result) {
      s.notes.push(`Section run time ${((performance.now() - t) / 1000).toFixed(1)} s.`);
      console.log(renderText(s, { scored: !quick }));
      sections.push(s);
    }
  };
  await run('storage', () =>
    storageBench(
      quick
        ? { users: 100, dispatchRounds: 1, resolveRounds: 1, linkRounds: 1 }
        : { users: 1000, dispatchRounds: 3, resolveRounds: 5, linkRounds: 20 },
    ),
  );
  await run('rejected', () => rejectedBench({ invocations: Number(option('invocations') ?? (quick ? 100 : 2000)) }));
  await run('largest', () =>
    largestBench({
      sample: Number(option('sample') ?? (quick ? 100 : 3000)),
      ...(quick ? { users: 100, documents: 3 } : {}),
    }),
  );
  await run('twin-store', () => {
    const [users = 0, documents = 0] = (option('twin-set') ?? (quick ? '30x2' : '1000x5')).split('x').map(Number);
    return twinStoreBench({ users, documents, rounds: Number(option('twin-rounds') ?? (full ? 3 : quick ? 1 : 2)) });
  });
  await run('consent', () => consentBench({ users: quick ? 100 : 1000, pages: quick ? 2 : 5 }));
  await run('throughput', () =>
    throughputBench({
      connections: (option('connections') ?? (quick ? '8' : '1,8,32')).split(',').map(Number),
      seconds: Number(option('seconds') ?? (full ? 5 : quick ? 0.5 : 2)),
      rounds: Number(option('rounds') ?? (full ? 7 : quick ? 1 : 5)),
      // Quick: no warm-up, as nothing is scored.
      warmupSeconds: full ? 2 : quick ? 0 : 1,
    }),
  );
  await run('webhooks', () =>
    webhooksBench({
      changes: quick ? 20 : 200,
      events: Number(option('events') ?? (full ? 10_000 : quick ? 200 : 2_000)),
      endpoints: 10,
      failureRate: 0.2,
    }),
  );
  await run('migration', () =>
    migrationBench({
      sizes: (option('sizes') ?? (full ? '1000,10000,50000' : quick ? '150' : '1000,5000')).split(',').map(Number),
    }),
  );
  await run('imports', () =>
    importsBench(
      quick
        ? // Quick: CSV through the reader only; the store's import in jsonl, a few hundred rows; no
          // resolve during an import (the twin's start would be most of the section's time).
          {
            pipelineRows: [2_000, 20_000],
            storeRows: 300,
            storeFormats: ['jsonl'],
          }
        : {
            pipelineRows: [100_000, 1_000_000],
            storeRows: 10_000,
            storeFormats: ['jsonl', 'csv'],
            resolve: {
              requests: 1_000,
              connections: 8,
              rate: 25,
              rows: 200_000,
              writesPerSecond: DEFAULT_IMPORT_WRITES_PER_SECOND,
            },
          },
    ),
  );
  await run('dev-reload', () =>
    devReloadBench({
      saves: Number(option('saves') ?? (full ? 10 : quick ? 1 : 5)),
      // Quick: the reload alone; the full restart it replaced is the baseline of a scored run.
      baselineSaves: full ? 3 : quick ? 0 : 2,
    }),
  );
  // Last: synthesizing the CDK app leaves this process much bigger, which would distort the
  // memory figures of the sections above.
  await run('bundles', () =>
    bundleBench({
      runs: Number(option('runs') ?? (full ? 40 : quick ? 1 : 20)),
      // Quick: one function of each kind (a read, a write, a queue consumer, a page) beside the
      // baselines, and only those bundled (CI's synth has bundled every function already).
      ...(option('functions')
        ? { functions: String(option('functions')).split(',') }
        : quick
          ? { functions: ['getConfig', 'setConfig', 'MigrationConsumer', 'preferencePage'] }
          : {}),
      metafileDir: join(RESULTS_DIR, 'metafiles'),
    }),
  );

  const info: RunInfo = {
    startedAt,
    loadAtStart,
    durationMs: performance.now() - started,
    mode: full ? 'full' : quick ? 'quick' : 'default',
    command: `npm run bench${args.length ? ` -- ${args.join(' ')}` : ''}`,
    machine: machine(),
  };
  const files = await writeResults(RESULTS_DIR, info, sections);
  const missed = sections.flatMap((s) => s.goals.filter((g) => !g.met).map((g) => `${s.title}: ${g.name}`));
  console.log(
    quick
      ? `\n[bench] quick run done in ${(info.durationMs / 1000).toFixed(0)} s: ${only ? `the section(s) ${only.join(', ')} ran` : 'every section ran'}; its goals are not scored (small sizes, in-memory stores in one DynamoDB Local, figures too short to mean much: the met and miss beside them are for reading only)`
      : `\n[bench] done in ${(info.durationMs / 1000).toFixed(0)} s; ${missed.length} goal(s) missed${missed.length ? `:\n  ${missed.join('\n  ')}` : ''}`,
  );
  console.log(
    `[bench] results: ${files
      .slice(0, 2)
      .map((f) => join('test/bench/results', f.split('/').at(-1) as string))
      .join(', ')}`,
  );
};

// Quick: the sections' in-memory stores join one DynamoDB Local, each in a database of its own
// (a store's access key picks it: local/dynamo.ts), instead of starting a JVM each; a store on a
// data directory still starts its own. A default or full run keeps a JVM per store, as `npm start`
// runs it, so that no section's figures carry another's data or garbage. The start is not
// awaited: the JVM starts while the first section loads its handlers, and a store waits for it
// to answer (local/dynamo.ts).
const sharedPort = quick && !process.env[SHARED_DYNAMODB_LOCAL_ENV] ? await freePort() : undefined;
const sharedStore = sharedPort ? startDynamoDbLocal({ port: sharedPort }) : undefined;
if (sharedPort) process.env[SHARED_DYNAMODB_LOCAL_ENV] = `http://127.0.0.1:${sharedPort}`;
sharedStore?.catch((error: Error) =>
  console.error(`[bench] the shared DynamoDB Local did not start: ${error.message}`),
);
try {
  await main();
} finally {
  await (await sharedStore)?.close();
}
// Handler modules keep SDK sockets and timers; the report is written, so leave.
process.exit(0);
