import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { App, type CfnElement, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { build } from 'esbuild';
import { PROJECT_ROOT, ServiceFunction } from '#infra/constructs/service-function.js';
import { createServiceApp } from '#infra/service-app.js';
import { handlerEntryOf, OPERATIONS } from '#shared/api/operations.js';
import { MIGRATION_CONSUMER_FUNCTION, NOT_FOUND_FUNCTION } from '#shared/deployment/functions.js';
import { goal, type Section, section } from './report.js';
import { fmtBytes, fmtMs, fmtRatio, median, percentile, ratio } from './stats.js';

const run = promisify(execFile);

export const BASELINE_ENTRY = 'test/bench/fixtures/baseline-clients.ts';

interface Bundle {
  name: string;
  entry: string;
  dir: string;
  bytes: number;
  /** The function's environment from the template, Refs replaced by plausible values. */
  env: Record<string, string>;
}

interface InitSample {
  importMs: number;
  /** From process start (performance.timeOrigin) to the handler module being ready. */
  readyMs: number;
  heapUsed: number;
  rss: number;
}

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation has no static type.
type Json = Record<string, any>;

/** Refs in the template become what a deployed function would see. */
const resolveEnv = (variables: Json = {}): Record<string, string> =>
  Object.fromEntries(
    Object.entries(variables).map(([name, value]) => {
      if (typeof value === 'string') return [name, value];
      const ref = String((value as { Ref?: string }).Ref ?? 'value');
      return [name, name.endsWith('_URL') ? `https://sqs.eu-west-1.amazonaws.com/000000000000/${ref}` : `bench-${ref}`];
    }),
  );

/** What Lambda itself sets in every function's environment (values are placeholders). */
const lambdaEnv = (name: string): Record<string, string> => ({
  AWS_REGION: 'eu-west-1',
  AWS_DEFAULT_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'ASIABENCH',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_SESSION_TOKEN: 'bench',
  AWS_LAMBDA_FUNCTION_NAME: name,
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
  AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  TZ: ':UTC',
});

/** Functions of a synthesized stack: the asset directory of each and its environment. */
const bundlesOf = (outdir: string, stack: Stack, template: Json, functions: [string, ServiceFunction, string][]) =>
  Promise.all(
    functions.map(async ([name, fn, entry]): Promise<Bundle> => {
      const logicalId = stack.getLogicalId(fn.function.node.defaultChild as CfnElement);
      const props = template.Resources[logicalId].Properties;
      const dir = join(outdir, `asset.${String(props.Code.S3Key).replace(/\.zip$/, '')}`);
      return {
        name,
        entry,
        dir,
        bytes: (await stat(join(dir, 'index.mjs'))).size,
        env: resolveEnv(props.Environment?.Variables),
      };
    }),
  );

/**
 * Bundles exactly as a deployment does: synthesizes the service's CDK app (NodejsFunction runs
 * the local esbuild with the ServiceFunction options), and the baseline through a
 * ServiceFunction of its own, so the options cannot drift from the stack's.
 */
const synthBundles = async (outdir: string): Promise<{ functions: Bundle[]; baseline: Bundle }> => {
  const { app, stack } = createServiceApp({ outdir: join(outdir, 'service') });
  const assembly = app.synth();
  const template = assembly.getStackByName(stack.stackName).template as Json;
  const entries: Record<string, string> = {
    ...Object.fromEntries(OPERATIONS.map((operation) => [operation.operationId, handlerEntryOf(operation)])),
    NotFound: NOT_FOUND_FUNCTION.entry,
    MigrationConsumer: MIGRATION_CONSUMER_FUNCTION.entry,
  };
  const functions = await bundlesOf(
    join(outdir, 'service'),
    stack,
    template,
    Object.entries(stack.functions).map(([name, fn]) => [name, fn, entries[name] ?? '?']),
  );

  const baselineApp = new App({ outdir: join(outdir, 'baseline') });
  const baselineStack = new Stack(baselineApp, 'BenchBaseline');
  const baselineFn = new ServiceFunction(baselineStack, 'Baseline', {
    spec: { entry: BASELINE_ENTRY, description: 'Cold-start baseline: only the AWS SDK clients' },
    // The same service-wide variables every function gets; no table names (the clients read none).
    environment: { POWERTOOLS_SERVICE_NAME: 'notification-preferences', POWERTOOLS_LOG_LEVEL: 'INFO' },
    logRetention: RetentionDays.ONE_WEEK,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const baselineTemplate = baselineApp.synth().getStackByName(baselineStack.stackName).template as Json;
  const [baseline] = await bundlesOf(join(outdir, 'baseline'), baselineStack, baselineTemplate, [
    ['Baseline (SDK clients only)', baselineFn, BASELINE_ENTRY],
  ]);
  return { functions, baseline: baseline as Bundle };
};

const INIT_SCRIPT = `const t0 = performance.now();
const m = await import('./index.mjs');
const t1 = performance.now();
if (typeof m.handler !== 'function') throw new Error('no handler export');
const { heapUsed, rss } = process.memoryUsage();
process.stdout.write(JSON.stringify({ importMs: t1 - t0, readyMs: t1, heapUsed, rss }));`;

/** One cold start: a fresh Node process, the function's environment, the bundle imported from its own directory. */
const coldStart = async (bundle: Bundle): Promise<InitSample> => {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', INIT_SCRIPT], {
    cwd: bundle.dir,
    env: { PATH: process.env.PATH ?? '', ...lambdaEnv(bundle.name), ...bundle.env },
  });
  return JSON.parse(stdout) as InitSample;
};

/** Output bytes per package of a bundle (esbuild metafile of an analysis build, same entry). */
const packageBytes = async (
  entry: string,
  metafileOut: string,
): Promise<{ total: number; byPackage: Map<string, number> }> => {
  const result = await build({
    entryPoints: [join(PROJECT_ROOT, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    mainFields: ['module', 'main'],
    outfile: 'index.mjs',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  // For a closer look: https://esbuild.github.io/analyze/ reads this file.
  await writeFile(metafileOut, JSON.stringify(result.metafile));
  const output = Object.values(result.metafile.outputs)[0];
  const byPackage = new Map<string, number>();
  for (const [path, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    const name = match
      ? (match[1] as string)
      : (relative(PROJECT_ROOT, join(PROJECT_ROOT, path)).split('/')[0] ?? path);
    byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
  }
  return { total: output?.bytes ?? 0, byPackage };
};

export interface BundleOptions {
  runs: number;
  /** Where the analysis builds' esbuild metafiles are written. */
  metafileDir: string;
}

export const bundleBench = async ({ runs, metafileDir }: BundleOptions): Promise<Section[]> => {
  const outdir = await mkdtemp(join(tmpdir(), 'bench-bundles-'));
  try {
    const synthStarted = performance.now();
    const { functions, baseline } = await synthBundles(outdir);
    const synthMs = performance.now() - synthStarted;
    const all = [baseline, ...functions];

    // Cold starts interleaved (one of each per round), so machine noise hits all alike.
    const samples = new Map<Bundle, InitSample[]>(all.map((b) => [b, []]));
    await coldStart(baseline); // warms the OS file cache
    for (let round = 0; round < runs; round++) {
      for (const bundle of all) samples.get(bundle)?.push(await coldStart(bundle));
    }

    await mkdir(metafileDir, { recursive: true });
    const analysis = new Map(
      await Promise.all(
        all.map(
          async (b) =>
            [b, await packageBytes(b.entry, join(metafileDir, `${b.name.split(' ')[0]}.meta.json`))] as const,
        ),
      ),
    );
    const baseInit = median((samples.get(baseline) ?? []).map((s) => s.importMs));
    const basePackages = analysis.get(baseline)?.byPackage ?? new Map<string, number>();

    const s = section('bundles', '6. Bundles and cold start');
    const rows = all.map((b) => {
      const list = samples.get(b) ?? [];
      const init = median(list.map((x) => x.importMs));
      const added = [...(analysis.get(b)?.byPackage ?? new Map<string, number>())]
        .map(([pkg, bytes]) => [pkg, bytes - (basePackages.get(pkg) ?? 0)] as const)
        .filter(([, bytes]) => bytes > 512)
        .sort((x, y) => y[1] - x[1])
        .slice(0, 4)
        .map(([pkg, bytes]) => `${pkg} ${fmtBytes(bytes)}`)
        .join(', ');
      return {
        bundle: b,
        init,
        p90: percentile(
          list.map((x) => x.importMs),
          90,
        ),
        ready: median(list.map((x) => x.readyMs)),
        heap: median(list.map((x) => x.heapUsed)),
        added: b === baseline ? '(baseline)' : added || '-',
      };
    });
    s.tables.push({
      title: `Minified bundle (index.mjs, as synthesized by the stack) and module initialisation in a fresh Node process (median of ${runs})`,
      columns: [
        'function',
        'bundle',
        'x baseline',
        'init (import)',
        'x baseline',
        'init p90',
        'ready since process start',
        'heap after init',
        'largest additions over the baseline',
      ],
      rows: rows.map((r) => [
        r.bundle.name,
        fmtBytes(r.bundle.bytes),
        fmtRatio(ratio(r.bundle.bytes, baseline.bytes)),
        fmtMs(r.init),
        fmtRatio(ratio(r.init, baseInit)),
        fmtMs(r.p90),
        fmtMs(r.ready),
        fmtBytes(r.heap),
        r.added,
      ]),
    });
    for (const r of rows.filter((x) => x.bundle !== baseline)) {
      const size = ratio(r.bundle.bytes, baseline.bytes);
      const init = ratio(r.init, baseInit);
      s.goals.push(goal(`${r.bundle.name}: bundle size`, fmtRatio(size), '<= 1.25x baseline', size <= 1.25));
      s.goals.push(goal(`${r.bundle.name}: init time`, fmtRatio(init), '<= 1.25x baseline', init <= 1.25));
    }
    const drift = all
      .map((b) => ({ b, analysed: analysis.get(b)?.total ?? 0 }))
      .filter(({ b, analysed }) => Math.abs(analysed - b.bytes) / b.bytes > 0.02);
    s.notes.push(
      `Bundles built by synthesizing the CDK app (NodejsFunction with the ServiceFunction options, local esbuild); the baseline (${BASELINE_ENTRY}) through a ServiceFunction too. Synthesis took ${fmtMs(synthMs)}.`,
      "Init = time of `await import('./index.mjs')` in `node --input-type=module` run in the asset directory, with the function's environment from the template (NODE_OPTIONS=--enable-source-maps included) plus Lambda's own variables; the Lambda runtime's own bootstrap is not included.",
      `"Largest additions" come from an esbuild metafile of an analysis build of the same entry (written to test/bench/results/metafiles/)${drift.length ? `; its size differs by more than 2% from the synthesized bundle for ${drift.map((d) => d.b.name).join(', ')}` : ' (its size matches the synthesized bundle within 2%)'}.`,
    );
    s.data = {
      runs,
      synthMs,
      bundles: rows.map((r) => ({
        name: r.bundle.name,
        entry: r.bundle.entry,
        bytes: r.bundle.bytes,
        initMedianMs: r.init,
        initP90Ms: r.p90,
        readyMedianMs: r.ready,
        heapUsed: r.heap,
        sizeRatio: ratio(r.bundle.bytes, baseline.bytes),
        initRatio: ratio(r.init, baseInit),
        samples: samples.get(r.bundle)?.map((x) => x.importMs),
      })),
    };
    return [s];
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
};
