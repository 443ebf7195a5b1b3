import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { App, type CfnElement, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { build } from 'esbuild';
import { ServiceFunction } from '#infra/constructs/service-function.js';
import { createServiceApp } from '#infra/service-app.js';
import { ensureTables, startEmbeddedDynamo } from '#local/dynamo.js';
import { startLocalS3, uploadNotice } from '#local/files/local-s3.js';
import { ensureLocalCredential } from '#local/local-credential.js';
import { startLocalSecretsManager } from '#local/secrets/local-secrets-manager.js';
import { esbuildAliases } from '#service/bundle-aliases.js';
import { NON_ROUTE_FUNCTIONS } from '#service/functions.js';
import { REPO_ROOT } from '#service/repository-root.js';
import { handlerEntryOf, PUBLIC_ROUTES } from '#service/routes.js';
import { TABLES } from '#service/tables.js';
import { erasureJob } from '#shared/erasure/kind.js';
import { EVENT_SOURCE } from '#shared/events/events.js';
import { exportJob } from '#shared/exports/kind.js';
import { FileStore } from '#shared/files/store.js';
import { createImport } from '#shared/imports/create.js';
import { importJob } from '#shared/imports/kind.js';
import type { ImportRecord } from '#shared/imports/model.js';
import { recordKey } from '#shared/jobs/keys.js';
import type { JobQueue } from '#shared/jobs/queue.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { startJob } from '#shared/jobs/start.js';
import { sealLink } from '#shared/links/token.js';
import { migrationJob } from '#shared/migration/kind.js';
import { ENV } from '#shared/platform/environment.js';
import { DynamoWebhookStore } from '#shared/webhooks/dynamo-store.js';
import { setWebhooks } from '#shared/webhooks/service.js';
import { OPERATIONS, type Operation, operationById } from '#tools/openapi/operations.js';
import { apiEvent } from '../support/api-events.js';
import { keyringAt } from '../support/links.js';
import { entryItem, streamRecord } from '../support/stream-records.js';
import { BASELINES, type BaselineKind, type BaselineSpec, baselineOf, sameCredentials } from './baselines.js';
import { progress } from './progress.js';
import { goal, type Section, section } from './report.js';
import { startStubEventBridge, startStubSqs } from './servers/stubs.js';
import { fmtBytes, fmtMs, fmtRatio, median, percentile, ratio } from './stats.js';

const run = promisify(execFile);

/**
 * The control row: the DynamoDB reads baseline measured a second time in each round, and
 * scored against itself as the functions are. An identical bundle should come out at 1.00x; how
 * far it strays is how far any ratio of the run can stray by the machine alone, and a run whose
 * control strays more than CONTROL_TOLERANCE is too noisy to judge the others by.
 */
const CONTROL = 'Control: DynamoDB reads baseline again';
const CONTROL_TOLERANCE = 0.1;
/**
 * The cold-start goal: each function's bundle and CPU to its first answer at most this times the
 * SDK-only baseline with the same clients, with the runtime's stock settings.
 */
const GOAL_RATIO = 1.4;

interface Bundle {
  name: string;
  entry: string;
  dir: string;
  bytes: number;
  /** index.mjs.map, as deployed: node reads it at each cold start (NODE_OPTIONS=--enable-source-maps). */
  mapBytes: number;
  mapSources: number;
  /** The function's environment from the template, Refs replaced by plausible values. */
  env: Record<string, string>;
  /** The baseline it is compared with: whether it sends to SQS (a baseline: itself). */
  baseline: BaselineKind;
  /** Built as a plain SDK function: the SDK's default credential chain and settings lookup (the scored baselines only). */
  plainSdk: boolean;
}

interface InitSample {
  importMs: number;
  /** Import plus the first invocation, until its answer. */
  firstAnswerMs: number;
  /** CPU time (user + system) of the same spans. */
  importCpuMs: number;
  firstAnswerCpuMs: number;
  /** CPU time of the whole process to the first answer: node's own start included, which the spans above leave out. */
  processCpuMs: number;
  /** From process start (performance.timeOrigin) to the first answer. */
  readyMs: number;
  heapUsed: number;
  rss: number;
  /** The first answer's HTTP status (a queue consumer: 200 when no record failed). */
  status: number;
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

/** A function synthesized for the bench, before its bundle is read. */
type Built = Pick<Bundle, 'name' | 'entry' | 'baseline' | 'plainSdk'> & { fn: ServiceFunction };

/** Functions of a synthesized stack: the asset directory of each, its map and its environment. */
const bundlesOf = (outdir: string, stack: Stack, template: Json, functions: Built[]) =>
  Promise.all(
    functions.map(async ({ name, fn, entry, baseline, plainSdk }): Promise<Bundle> => {
      const logicalId = stack.getLogicalId(fn.function.node.defaultChild as CfnElement);
      const props = template.Resources[logicalId].Properties;
      const dir = join(outdir, `asset.${String(props.Code.S3Key).replace(/\.zip$/, '')}`);
      const map = JSON.parse(await readFile(join(dir, 'index.mjs.map'), 'utf8')) as { sources: string[] };
      return {
        name,
        entry,
        dir,
        bytes: (await stat(join(dir, 'index.mjs'))).size,
        mapBytes: (await stat(join(dir, 'index.mjs.map'))).size,
        mapSources: map.sources.length,
        env: resolveEnv(props.Environment?.Variables),
        baseline,
        plainSdk,
      };
    }),
  );

/**
 * Bundles exactly as a deployment does: synthesizes the service's CDK app (NodejsFunction runs
 * the local esbuild with the ServiceFunction options), and the baselines through ServiceFunctions
 * of their own, so the options cannot drift from the stack's. With `only` (some functions), the
 * service's stack is built without bundling, for its functions' environments, and those functions
 * are bundled by ServiceFunctions of their own beside the baselines: a bundle depends on the
 * construct, the entry and nothing else, so it is the stack's, without bundling every other.
 */
const synthBundles = async (
  outdir: string,
  only?: string[],
): Promise<{ functions: Bundle[]; baselines: Record<BaselineKind, Bundle> }> => {
  const { app, stack } = createServiceApp({
    outdir: join(outdir, 'service'),
    ...(only ? { context: { [BUNDLING_STACKS]: [] } } : {}),
  });
  // Each function's entry and what chooses its baseline (baselines.ts): the HTTP functions' from their routes.
  const specs: Record<string, BaselineSpec & { entry: string }> = {
    ...Object.fromEntries(
      (OPERATIONS as readonly Operation[]).map((operation) => [
        operation.operationId,
        { entry: handlerEntryOf(operation), ...operation.function, http: true },
      ]),
    ),
    ...Object.fromEntries(Object.entries(NON_ROUTE_FUNCTIONS).map(([name, spec]) => [name, { ...spec, http: false }])),
    // The pages of the links in emails: their functions are named by the route's id.
    ...Object.fromEntries(
      PUBLIC_ROUTES.map((route) => [
        route.id,
        { entry: handlerEntryOf({ operationId: route.id }), ...route.function, http: true },
      ]),
    ),
  };
  const built = Object.entries(stack.functions).map(([name, fn]): Built => {
    const spec = specs[name];
    if (!spec) throw new Error(`bench: no function spec for the stack's function ${name}`);
    return { name, fn, entry: spec.entry, baseline: baselineOf(spec), plainSdk: false };
  });
  const unknown = only?.filter((name) => !built.some((b) => b.name === name)) ?? [];
  if (unknown.length) throw new Error(`bench: no function named ${unknown.join(', ')}`);

  const baselineApp = new App({ outdir: join(outdir, 'baseline') });
  const baselineStack = new Stack(baselineApp, 'BenchBaseline');
  const chosen = only
    ? built
        .filter((b) => only.includes(b.name))
        .map((b) => ({
          ...b,
          // The environment the stack gives the function, as its template would read.
          env: resolveEnv(
            (stack.resolve((b.fn.function.node.defaultChild as CfnFunction).environment) as Json | undefined)
              ?.variables,
          ),
          fn: new ServiceFunction(baselineStack, `Function${b.name}`, {
            spec: { entry: b.entry, description: b.name },
            environment: {},
            logRetention: RetentionDays.ONE_WEEK,
            removalPolicy: RemovalPolicy.DESTROY,
          }),
        }))
    : undefined;
  const functions = chosen
    ? []
    : await bundlesOf(
        join(outdir, 'service'),
        stack,
        app.synth().getStackByName(stack.stackName).template as Json,
        built,
      );
  // With some functions chosen, the baselines they are compared with only (each scored one and
  // its twin built as the functions are), and the DynamoDB reads pair that the control and the
  // notes read: every baseline the section looks up.
  const kinds = chosen
    ? new Set<string>([
        'reads',
        'readsEnvCredentials',
        ...chosen.flatMap((b) => [b.baseline, sameCredentials(b.baseline)]),
      ])
    : undefined;
  const baselineFunctions = Object.entries(BASELINES)
    .filter(([kind]) => !kinds || kinds.has(kind))
    .map(([kind, { name, entry, plainSdk }]) => {
      const fn = new ServiceFunction(baselineStack, kind, {
        spec: { entry, description: name },
        plainSdk,
        // The same service-wide variables every function gets; tables and queue come with the bench's env.
        environment: { POWERTOOLS_SERVICE_NAME: 'notification-preferences', POWERTOOLS_LOG_LEVEL: 'INFO' },
        logRetention: RetentionDays.ONE_WEEK,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      return { name, fn, entry, baseline: kind as BaselineKind, plainSdk };
    });
  const baselineTemplate = baselineApp.synth().getStackByName(baselineStack.stackName).template as Json;
  const baselineDir = join(outdir, 'baseline');
  const baselineBundles = await bundlesOf(baselineDir, baselineStack, baselineTemplate, baselineFunctions);
  // Every kind the section looks up is built (above).
  const baselines = Object.fromEntries(baselineBundles.map((b) => [b.baseline, b])) as Record<BaselineKind, Bundle>;
  if (!chosen) return { functions, baselines };
  const bundled = await bundlesOf(baselineDir, baselineStack, baselineTemplate, chosen);
  return { functions: bundled.map((b, i) => ({ ...b, env: chosen[i]?.env ?? {} })), baselines };
};

// One cold start: import the bundle, then answer one event (BENCH_EVENT) with a Lambda-like
// context, timing both spans in wall and CPU time. It exits at once: the SDK keeps sockets open.
const MARKER = 'BENCH_RESULT ';
// The function logs to stdout as deployed (that is part of its cost): the result is the line
// after the marker.
// The twin's endpoints are http, Lambda's https. For http the SDK imports node:http as a module,
// whose ESM facade reads every export, WebSocket included, and so loads Node's bundled undici
// (tens of ms of CPU), which a deployed function does not load for these first events (a
// multipart form would: shared/links/form.ts). undici is loaded before the measured span (reading
// the Headers global does it), for the baselines and the functions alike; the TLS handshakes a
// deployed function makes instead are not measured either.
const INIT_SCRIPT = `const MARKER = ${JSON.stringify(MARKER)};
void globalThis.Headers;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const m = await import('./index.mjs');
const t1 = performance.now();
const cpu1 = process.cpuUsage(cpu0);
if (typeof m.handler !== 'function') throw new Error('no handler export');
const deadline = Date.now() + Number(process.env.BENCH_TIMEOUT_MS);
const context = {
  callbackWaitsForEmptyEventLoop: true, functionName: process.env.AWS_LAMBDA_FUNCTION_NAME, functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:bench', memoryLimitInMB: '512',
  awsRequestId: crypto.randomUUID(), logGroupName: '/aws/lambda/bench', logStreamName: 'bench',
  getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
};
const answer = await m.handler(JSON.parse(process.env.BENCH_EVENT), context);
const t2 = performance.now();
const cpu2 = process.cpuUsage(cpu0);
const total = process.cpuUsage();
const { heapUsed, rss } = process.memoryUsage();
// A batch answer: 200 when no record failed; an HTTP answer: its status; anything else (the sweeper's summary): 200.
const status = answer && 'batchItemFailures' in answer ? (answer.batchItemFailures.length ? 500 : 200) : answer?.statusCode ?? 200;
process.stdout.write('\\n' + MARKER + JSON.stringify({
  importMs: t1 - t0, firstAnswerMs: t2 - t0,
  importCpuMs: (cpu1.user + cpu1.system) / 1000, firstAnswerCpuMs: (cpu2.user + cpu2.system) / 1000,
  processCpuMs: (total.user + total.system) / 1000, readyMs: t2, heapUsed, rss, status,
}), () => process.exit(0));`;

/** A small seeded generator (mulberry32): the bench's order is random but the same each run. */
const seededRandom = (seed: number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/** A copy of `items` in a random order (Fisher-Yates). */
const shuffled = <T>(items: readonly T[], random: () => number): T[] => {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
};

/** One cold start: a fresh Node process, the function's environment, the bundle imported from its own directory. */
const coldStart = async (bundle: Bundle, env: Record<string, string>, event: unknown): Promise<InitSample> => {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', INIT_SCRIPT], {
    cwd: bundle.dir,
    env: {
      PATH: process.env.PATH ?? '',
      ...lambdaEnv(bundle.name),
      ...bundle.env,
      ...env,
      BENCH_EVENT: JSON.stringify(event),
      BENCH_TIMEOUT_MS: '10000',
    },
  });
  return JSON.parse(stdout.slice(stdout.lastIndexOf(MARKER) + MARKER.length)) as InitSample;
};

/** The list a migration or erasure start writes to, instead of SQS: the bench delivers nothing from it. */
const noQueue: JobQueue = { send: async () => {} };

/** One SQS message as Lambda delivers it to a consumer. */
const sqsEvent = (round: number, queue: string, body: unknown) => ({
  Records: [
    {
      messageId: `bench-${round}`,
      receiptHandle: `bench-${round}`,
      body: JSON.stringify(body),
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()) },
      messageAttributes: {},
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:eu-west-1:000000000000:${queue}`,
      awsRegion: 'eu-west-1',
    },
  ],
});

/** A webhook URL whose host is a public address: webhooks/set checks its host, and no name resolves here. */
const BENCH_WEBHOOK_URL = 'https://93.184.215.14/notification-preferences';

/**
 * Where the cold starts' first calls go: the twin's DynamoDB (local/dynamo.ts) with the tables
 * and a credential, the twin's Secrets Manager stand-in with the link keys, the twin's S3
 * (s3rver, local/files/) with the files bucket, and a stub SQS.
 * `eventFor` builds each function's first event; each round gets fresh documents to migrate, a
 * fresh migration for the consumer and a fresh link for the pages, so that no first answer is a
 * repeat.
 */
const startTargets = async () => {
  const store = await startEmbeddedDynamo();
  const sqs = await startStubSqs();
  const eventBridge = await startStubEventBridge();
  const secrets = await startLocalSecretsManager({ accessKeyId: 'ASIABENCH' });
  const credential = { accessKeyId: 'ASIABENCH', secretAccessKey: 'bench' };
  const files = await startLocalS3({ credential, region: 'eu-west-1' });
  const keyring = await keyringAt(secrets.endpoint, { accessKeyId: 'ASIABENCH', secretAccessKey: 'bench' });
  // DynamoDB Local keeps one database per access key and region: the functions' (lambdaEnv).
  const client = new DynamoDBClient({
    endpoint: store.endpoint,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'ASIABENCH', secretAccessKey: 'bench' },
  });
  const doc = DynamoDBDocumentClient.from(client);
  await ensureTables(client);
  const { apiKey, token } = await ensureLocalCredential({ client: doc, tableName: TABLES.credentials.localName });
  const repository = new DynamoJobRepository(migrationJob, doc, TABLES.migrations.localName);
  const start = (round: number, name: string) =>
    startJob(
      migrationJob,
      { repository, queue: noQueue },
      { organizationId: 'acme', documentId: `${name}-${round}-source`, newDocumentId: `${name}-${round}-target` },
      apiKey,
    );
  const erasures = new DynamoJobRepository(erasureJob, doc, TABLES.migrations.localName);
  const exportRecords = new DynamoJobRepository(exportJob, doc, TABLES.migrations.localName);
  const importRecords = new DynamoJobRepository(importJob, doc, TABLES.migrations.localName);
  const fileStore = new FileStore(
    new S3Client({ endpoint: files.endpoint, region: 'eu-west-1', credentials: credential, forcePathStyle: true }),
    files.bucket,
  );
  const { migrationId: statusId } = await start(0, 'status');
  const { erasureId: erasureStatusId } = await startJob(
    erasureJob,
    { repository: erasures, queue: noQueue },
    { organizationId: 'acme', userId: 'status' },
    apiKey,
  );
  // Jobs whose status the status routes read (a documented example's id names none here).
  const { exportId: exportStatusId } = await startJob(
    exportJob,
    { repository: exportRecords, queue: noQueue },
    { organizationId: 'acme', format: 'csv' },
    apiKey,
  );
  const { importId: importStatusId } = await createImport(
    { repository: importRecords, files: fileStore },
    { organizationId: 'acme', format: 'csv' },
    apiKey,
  );
  // Both completed as a consumer completes a job (its lease, then complete), so that their status
  // answers sign the URL of a file as a finished job's do: the export's file, and the import's
  // error report (it names a rejected row): the work their files grant is for.
  const completed = async (
    repository: Pick<typeof exportRecords | typeof importRecords, 'acquireLease' | 'complete'>,
    id: string,
  ) => {
    const now = new Date();
    await repository.acquireLease(id, 'bench', now.getTime() + 60_000, now);
    await repository.complete(id, 'bench', now.toISOString());
  };
  await completed(exportRecords, exportStatusId);
  await completed(importRecords, importStatusId);
  await doc.send(
    new UpdateCommand({
      TableName: TABLES.migrations.localName,
      Key: recordKey(importJob, importStatusId),
      UpdateExpression: 'SET rowsRejected = :one',
      ExpressionAttributeValues: { ':one': 1 },
    }),
  );
  // An endpoint of acme's for rotate-secret to rotate each round (the documented example's id names none here).
  const webhookDeps = {
    store: new DynamoWebhookStore(doc, TABLES.config.localName),
    keys: { keyring: async () => keyring },
    allowLoopback: false,
  };
  const { endpoints: webhookEndpoints } = await setWebhooks(
    webhookDeps,
    { organizationId: 'acme', endpoints: [{ url: BENCH_WEBHOOK_URL, eventTypes: ['preference.changed'] }] },
    apiKey,
  );
  const webhookEndpointId = webhookEndpoints[0]?.id as string;
  const env: Record<string, string> = {
    ...Object.fromEntries(Object.values(TABLES).map((t) => [t.env, t.localName])),
    [ENV.migrationQueueUrl]: `${sqs.endpoint}/000000000000/migrations`,
    [ENV.erasureQueueUrl]: `${sqs.endpoint}/000000000000/erasures`,
    [ENV.exportQueueUrl]: `${sqs.endpoint}/000000000000/exports`,
    [ENV.importQueueUrl]: `${sqs.endpoint}/000000000000/imports`,
    [ENV.webhookQueueUrl]: `${sqs.endpoint}/000000000000/webhooks`,
    [ENV.filesBucket]: files.bucket,
    AWS_ENDPOINT_URL_S3: files.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: store.endpoint,
    AWS_ENDPOINT_URL_SQS: sqs.endpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: eventBridge.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    [ENV.linkKeysSecret]: secrets.secretId,
  };
  const headers = { 'x-service-api-key': apiKey, 'x-service-auth-token': token };
  const http = (path: string, data: unknown) => apiEvent(path, { headers, body: { data } });
  const example = (id: Parameters<typeof operationById>[0]) =>
    (Object.values(operationById(id).examples)[0] as { value: unknown }).value;
  const eventFor = async (bundle: Bundle, round: number): Promise<unknown> => {
    switch (bundle.name) {
      case 'migrateDocument':
        return http(operationById('migrateDocument').path, {
          organizationId: 'acme',
          documentId: `cold-${round}-source`,
          newDocumentId: `cold-${round}-target`,
        });
      case 'eraseUser':
        // A fresh user each round: a repeat of the same erasure would only read (it answers the job's id).
        return http(operationById('eraseUser').path, { organizationId: 'acme', userId: `cold-erase-${round}` });
      case 'getMigrationStatus':
        return http(operationById('getMigrationStatus').path, { organizationId: 'acme', migrationId: statusId });
      case 'getExportStatus':
        return http(operationById('getExportStatus').path, { organizationId: 'acme', exportId: exportStatusId });
      case 'getImportStatus':
        return http(operationById('getImportStatus').path, { organizationId: 'acme', importId: importStatusId });
      case 'getErasureStatus':
        return http(operationById('getErasureStatus').path, { organizationId: 'acme', erasureId: erasureStatusId });
      case 'NotFound':
        return apiEvent('/v2/unknown', { headers, body: { data: {} } });
      case 'unsubscribe':
      case 'preferencePage': {
        // The page of a fresh link, opened as a person's browser does (GET: it changes nothing).
        const route = PUBLIC_ROUTES.find((r) => r.id === bundle.name);
        const issuedAt = Math.floor(Date.now() / 1000);
        const token = await sealLink(
          { organizationId: 'acme', userId: `page-${round}`, channel: 'email', issuedAt, expiresAt: issuedAt + 3600 },
          keyring,
        );
        return apiEvent(`${route?.prefix}${token}`, { method: 'GET', headers: {} });
      }
      case 'setWebhooks': {
        // The documented example in a fresh organization each round (it replaces that organization's
        // endpoints), its URL's host an address: the bench's machine resolves no public name.
        const { endpoints } = example('setWebhooks') as { endpoints: { url: string }[] };
        return http(operationById('setWebhooks').path, {
          organizationId: `cold-webhooks-${round}`,
          endpoints: endpoints.map((endpoint) => ({ ...endpoint, url: BENCH_WEBHOOK_URL })),
        });
      }
      case 'rotateWebhookSecret':
        return http(operationById('rotateWebhookSecret').path, {
          organizationId: 'acme',
          endpointId: webhookEndpointId,
        });
      case 'setPolicy': {
        // The documented example expects a version: a fresh organization each round (the credential holds '*').
        const { organizationId: _unused, ...policy } = example('setPolicy') as { organizationId: string };
        return http(operationById('setPolicy').path, { ...policy, organizationId: `cold-policy-${round}` });
      }
      case 'MigrationConsumer': {
        const { migrationId } = await start(round, 'consumer');
        return sqsEvent(round, 'migrations', { migrationId });
      }
      case 'ErasureConsumer': {
        const { erasureId } = await startJob(
          erasureJob,
          { repository: erasures, queue: noQueue },
          { organizationId: 'acme', userId: `erased-${round}` },
          apiKey,
        );
        return sqsEvent(round, 'erasures', { erasureId });
      }
      case 'ExportConsumer': {
        const { exportId } = await startJob(
          exportJob,
          { repository: exportRecords, queue: noQueue },
          { organizationId: 'acme', format: 'jsonl' },
          apiKey,
        );
        return sqsEvent(round, 'exports', { exportId });
      }
      case 'ImportConsumer': {
        // A fresh import of a two-line file each round, started by S3's notice of its upload.
        const { importId } = await createImport(
          { repository: importRecords, files: fileStore },
          { organizationId: 'acme', format: 'jsonl' },
          apiKey,
        );
        const record = (await importRecords.get(importId)) as ImportRecord;
        const rows = [`{"userId":"imported-${round}","config":{"email":"NONE"}}`, '{"userId":"","config":{}}'];
        await fileStore.put(record.fileKey, Buffer.from(`${rows.join('\n')}\n`), 'application/x-ndjson');
        return sqsEvent(round, 'imports', JSON.parse(uploadNotice(record.fileKey, 0)));
      }
      case 'WebhookDispatcher':
        // A change's event as the bus's rule queues it: the organization has no endpoint, so nothing is sent.
        return sqsEvent(round, 'webhooks', {
          version: '0',
          id: `bench-${round}`,
          'detail-type': 'Notification Config Changed',
          source: EVENT_SOURCE,
          account: '000000000000',
          time: new Date().toISOString(),
          region: 'eu-west-1',
          resources: [],
          detail: {
            id: `change-${round}`,
            organizationId: 'acme',
            userId: `user-${round}`,
            before: {},
            after: { email: 'NONE' },
          },
        });
      case 'ChangePublisher': {
        // One config change, as the config table's stream delivers it: a history item and an event.
        const item = entryItem({ userId: `user-${round}`, sk: `user-${round}`, inbox: 'NONE' });
        return { Records: [streamRecord(TABLES.config.localName, 'INSERT', { new: item }, String(1_000 + round))] };
      }
      case 'MigrationSweeper':
        return {
          version: '0',
          id: `bench-${round}`,
          'detail-type': 'Scheduled Event',
          source: 'aws.events',
          account: '000000000000',
          time: new Date().toISOString(),
          region: 'eu-west-1',
          resources: [],
          detail: {},
        };
      default: {
        const operation = OPERATIONS.find((o) => o.operationId === bundle.name);
        if (operation) return http(operation.path, example(operation.operationId));
        // The baselines answer the same event as config/get.
        if (bundle.name === CONTROL || Object.values(BASELINES).some((b) => b.name === bundle.name)) {
          return http(operationById('getConfig').path, example('getConfig'));
        }
        throw new Error(`bench: no first event for the function ${bundle.name}`);
      }
    }
  };
  return {
    env,
    eventFor,
    close: async () => {
      client.destroy();
      await sqs.close();
      await eventBridge.close();
      await secrets.close();
      await files.close();
      await store.close();
    },
  };
};

/** Output bytes per package of a bundle (esbuild metafile of an analysis build, same entry). */
const packageBytes = async (
  { entry, plainSdk }: Pick<Bundle, 'entry' | 'plainSdk'>,
  metafileOut: string,
): Promise<{ total: number; byPackage: Map<string, number> }> => {
  const result = await build({
    entryPoints: [join(REPO_ROOT, entry)],
    // As the stack builds it: aliases resolved from the repository root.
    absWorkingDir: REPO_ROOT,
    alias: plainSdk ? {} : esbuildAliases(),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    charset: 'utf8',
    sourcemap: true,
    sourcesContent: false,
    mainFields: ['module', 'main'],
    outfile: 'index.mjs',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  // For a closer look: https://esbuild.github.io/analyze/ reads this file.
  await writeFile(metafileOut, JSON.stringify(result.metafile));
  const [path, output] = Object.entries(result.metafile.outputs).find(([name]) => !name.endsWith('.map')) ?? [];
  const byPackage = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    const name = match ? (match[1] as string) : (relative(REPO_ROOT, join(REPO_ROOT, input)).split('/')[0] ?? input);
    byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
  }
  return { total: path ? (output?.bytes ?? 0) : 0, byPackage };
};

export interface BundleOptions {
  runs: number;
  /** Where the analysis builds' esbuild metafiles are written. */
  metafileDir: string;
  /** Only these functions (by name) and their baselines; every function and baseline when absent. */
  functions?: string[];
}

export const bundleBench = async ({ runs, metafileDir, functions: only }: BundleOptions): Promise<Section[]> => {
  const outdir = await mkdtemp(join(tmpdir(), 'bench-bundles-'));
  const targets = await startTargets();
  try {
    const synthStarted = performance.now();
    const { functions, baselines } = await synthBundles(outdir, only);
    const synthMs = performance.now() - synthStarted;
    // The control: the DynamoDB reads baseline once more in each round, compared with itself as a
    // function is: its ratio is the noise floor of every ratio in the table.
    const control: Bundle = { ...baselines.reads, name: CONTROL };
    const all = [...Object.values(baselines), ...functions, control];

    // Cold starts interleaved (one of each per round), so machine noise hits all alike, in an
    // order shuffled each round (the same for every run of the bench): a slot of the round that
    // runs slower (the first, after the previous round's writes) is not always the baseline's.
    const samples = new Map<Bundle, InitSample[]>(all.map((b) => [b, []]));
    await coldStart(baselines.reads, targets.env, await targets.eventFor(baselines.reads, 0)); // warms the OS file cache
    let round = 0;
    const shown = progress('cold starts', () => `round ${round + 1} of ${runs}`);
    const random = seededRandom(20261127);
    for (; round < runs; round++) {
      for (const bundle of shuffled(all, random)) {
        samples.get(bundle)?.push(await coldStart(bundle, targets.env, await targets.eventFor(bundle, round + 1)));
      }
    }
    shown.stop();

    await mkdir(metafileDir, { recursive: true });
    const analysis = new Map(
      await Promise.all(
        all
          .filter((b) => b !== control)
          .map(
            async (b) =>
              [b, await packageBytes(b, join(metafileDir, `${b.name.replace(/\W+/g, '-')}.meta.json`))] as const,
          ),
      ),
    );
    analysis.set(control, analysis.get(baselines.reads) as Awaited<ReturnType<typeof packageBytes>>);
    const medianOf = (b: Bundle, pick: (x: InitSample) => number) => median((samples.get(b) ?? []).map(pick));

    const s = section('bundles', '6. Bundles and cold start');
    const rows = all.map((b) => {
      const base = baselines[b.baseline];
      const basePackages = analysis.get(base)?.byPackage ?? new Map<string, number>();
      const list = samples.get(b) ?? [];
      const isBaseline = b === base;
      const added = [...(analysis.get(b)?.byPackage ?? new Map<string, number>())]
        .map(([pkg, bytes]) => [pkg, bytes - (basePackages.get(pkg) ?? 0)] as const)
        .filter(([, bytes]) => bytes > 512)
        .sort((x, y) => y[1] - x[1])
        .slice(0, 4)
        .map(([pkg, bytes]) => `${pkg} ${fmtBytes(bytes)}`)
        .join(', ');
      return {
        bundle: b,
        base,
        isBaseline,
        init: medianOf(b, (x) => x.importMs),
        first: medianOf(b, (x) => x.firstAnswerMs),
        firstCpu: medianOf(b, (x) => x.firstAnswerCpuMs),
        processCpu: medianOf(b, (x) => x.processCpuMs),
        firstP90: percentile(
          list.map((x) => x.firstAnswerMs),
          90,
        ),
        heap: medianOf(b, (x) => x.heapUsed),
        // The $default route's answer is NOT_FOUND.
        failed: list.filter((x) => x.status !== (b.name === 'NotFound' ? 404 : 200)).length,
        statuses: [...new Set(list.map((x) => x.status))].join(', '),
        added: isBaseline ? '(baseline)' : added || '-',
      };
    });
    const byBundle = new Map(rows.map((r) => [r.bundle, r]));
    s.tables.push({
      title: `Minified bundle (index.mjs, as synthesized by the stack) and cold start to the first answer in a fresh Node process (median of ${runs}); each function against the baseline that does what its first call does`,
      columns: [
        'function',
        'baseline',
        'bundle',
        'x baseline',
        'import',
        'first answer',
        'first answer p90',
        'first answer CPU',
        'x baseline (CPU)',
        "process CPU (node's start included)",
        'heap after',
        'status',
        'largest additions over the baseline',
      ],
      rows: rows.map((r) => {
        const base = byBundle.get(r.base);
        return [
          r.bundle.name,
          r.isBaseline ? '-' : r.base.name.replace('Baseline: ', ''),
          fmtBytes(r.bundle.bytes),
          fmtRatio(ratio(r.bundle.bytes, r.base.bytes)),
          fmtMs(r.init),
          fmtMs(r.first),
          fmtMs(r.firstP90),
          fmtMs(r.firstCpu),
          fmtRatio(ratio(r.firstCpu, base?.firstCpu ?? Number.NaN)),
          fmtMs(r.processCpu),
          fmtBytes(r.heap),
          r.statuses,
          r.added,
        ];
      }),
    });
    for (const r of rows) {
      const base = byBundle.get(r.base);
      s.goals.push(
        goal(`${r.bundle.name}: first answers succeed`, `${runs - r.failed} of ${runs}`, 'all', r.failed === 0),
      );
      if (r.isBaseline) continue;
      const size = ratio(r.bundle.bytes, r.base.bytes);
      const first = ratio(r.firstCpu, base?.firstCpu ?? Number.NaN);
      if (r.bundle === control) {
        s.goals.push(
          goal(
            `${CONTROL}: CPU time to the first answer vs the same bundle's as the reads baseline, medians over the rounds (the noise floor of these ratios)`,
            fmtRatio(first),
            `within ${fmtRatio(1 - CONTROL_TOLERANCE)}-${fmtRatio(1 + CONTROL_TOLERANCE)}`,
            Math.abs(first - 1) <= CONTROL_TOLERANCE,
          ),
        );
        continue;
      }
      s.goals.push(
        goal(
          `${r.bundle.name}: bundle size vs ${r.base.name}`,
          fmtRatio(size),
          `<= ${fmtRatio(GOAL_RATIO)}`,
          size <= GOAL_RATIO,
        ),
      );
      s.goals.push(
        goal(
          `${r.bundle.name}: CPU time to the first answer vs ${r.base.name}`,
          `${fmtRatio(first)} (${fmtMs(r.firstCpu)} vs ${fmtMs(base?.firstCpu ?? Number.NaN)}; wall ${fmtRatio(ratio(r.first, base?.first ?? Number.NaN))})`,
          `<= ${fmtRatio(GOAL_RATIO)}`,
          first <= GOAL_RATIO,
        ),
      );
    }
    s.tables.push({
      title:
        "The framework's own share (not scored): each function against its baseline built as the functions are (credentials from the environment only, SDK settings in the environment), so that only the service's code and libraries differ",
      columns: ['function', 'baseline', 'bundle x baseline', 'first answer CPU x baseline'],
      rows: rows
        .filter((r) => !r.isBaseline && r.bundle !== control)
        .map((r) => {
          const same = baselines[sameCredentials(r.bundle.baseline)];
          return [
            r.bundle.name,
            same.name.replace('Baseline: ', ''),
            fmtRatio(ratio(r.bundle.bytes, same.bytes)),
            fmtRatio(ratio(r.firstCpu, byBundle.get(same)?.firstCpu ?? Number.NaN)),
          ];
        }),
    });
    s.tables.push({
      title:
        'Source maps (index.mjs.map, as synthesized by the stack): what node reads at each cold start of a function (NODE_OPTIONS=--enable-source-maps; the scored baselines run without it)',
      columns: ['function', 'map', 'sources'],
      rows: all.filter((b) => b !== control).map((b) => [b.name, fmtBytes(b.mapBytes), b.mapSources]),
    });
    const drift = all
      .map((b) => ({ b, analysed: analysis.get(b)?.total ?? 0 }))
      .filter(({ b, analysed }) => Math.abs(analysed - b.bytes) / b.bytes > 0.02);
    s.notes.push(
      `Bundles built by ${only ? "ServiceFunctions of the bench's own for the chosen functions (the same construct and entry as the stack's, so the same bundle; their environments the stack's, built without bundling)" : 'synthesizing the CDK app (NodejsFunction with the ServiceFunction options, local esbuild)'}; the baselines (${Object.values(
        BASELINES,
      )
        .filter((b) => b.plainSdk)
        .map((b) => b.entry)
        .join(', ')}) through ServiceFunctions too. Synthesis took ${fmtMs(synthMs)}.`,
      `Credentials and SDK settings: the scored baselines keep the SDK's default credential chain and its lookup of each setting (environment, then the shared config files, then the default), as a plain SDK function has them; the service's functions take Lambda's credentials from the environment only (service/bundle-aliases.ts) and find each SDK setting in their environment (service/lambda-sdk-settings.ts). The same two changes make the DynamoDB baseline ${fmtBytes(baselines.reads.bytes - baselines.readsEnvCredentials.bytes)} smaller and its first answer ${fmtMs((byBundle.get(baselines.reads)?.firstCpu ?? 0) - (byBundle.get(baselines.readsEnvCredentials)?.firstCpu ?? 0))} of CPU cheaper (medians); the table of the framework's own share compares each function with the baseline built that way.`,
      "Cold start = `await import('./index.mjs')` then one invocation of the handler, in `node --input-type=module` run in the asset directory, with the function's environment from the template (NODE_OPTIONS=--enable-source-maps included: node reads the bundle's map as it loads it, inside the measured span) plus Lambda's own variables, node started as the runtime ships (the column of the process's CPU counts from node's own start to the first answer); the Lambda runtime's own bootstrap is not included. Node's undici is loaded before the span: the twin's http endpoints make the SDK import node:http as a module, which loads it, and Lambda's https endpoints do not (counted on both sides, it would make every ratio look smaller). The first calls go to the twin's DynamoDB (local/dynamo.ts), a stub SQS, the twin's Secrets Manager stand-in and its S3 (s3rver, local/files/), none in the function's process; wall time includes their answers, CPU time is the function process's alone (scored: wall time moves with the machine's load).",
      "First events: each operation's first documented example (config/get's for the baselines); policy/set's a fresh organization each round (its example expects a version), and webhooks/set's too, with an address for its URL's host (no public name resolves on the bench's machine); rotate-secret an endpoint made before the rounds; the status routes an existing migration and erasure, a completed export and an ended import with a rejected row (so that their answers sign the URL of a file); migrate and the consumer get fresh documents and a fresh migration each round, users/erase a fresh user, the erasure consumer a fresh erasure, the two pages of the links in emails a fresh link each round (opened with GET; the keys from the twin's Secrets Manager stand-in, which links/create and links/revoke read too), the change publisher one config change from the stream (its events go to a stub EventBridge), the sweeper a scheduled event. The baselines, with plain SDK clients, read the credential and make one batched read, as config/get does; the others add the SQS client and one SendMessage, the Secrets Manager client and one GetSecretValue, or both; those of the files bucket's functions add the S3 client and, for an HTTP function, a presigned URL (the presigner; no call), for a consumer one PutObject (the export consumer) or one PutObject and one GetObject (the import consumer) besides the SQS send: each function is scored against the one with the clients and calls its spec names (queues, secrets, files: test/bench/baselines.ts), the only clients it bundles.",
      `Control: the DynamoDB reads baseline's bundle is started once more in each round and compared with itself as the functions are with their baselines; it should read 1.00x, and its distance from 1.00x is the run's noise floor (scored within ${fmtRatio(1 - CONTROL_TOLERANCE)}-${fmtRatio(1 + CONTROL_TOLERANCE)}).`,
      `"Largest additions" come from an esbuild build of the same entry (metafiles in test/bench/results/metafiles/)${drift.length ? `; its size differs by more than 2% from the synthesized bundle for ${drift.map((d) => d.b.name).join(', ')}` : ' (its size matches the synthesized bundle within 2%)'}.`,
    );
    s.data = {
      runs,
      synthMs,
      bundles: rows.map((r) => ({
        name: r.bundle.name,
        entry: r.bundle.entry,
        baseline: r.base.name,
        bytes: r.bundle.bytes,
        mapBytes: r.bundle.mapBytes,
        importMedianMs: r.init,
        firstAnswerMedianMs: r.first,
        firstAnswerCpuMedianMs: r.firstCpu,
        processCpuMedianMs: r.processCpu,
        firstAnswerP90Ms: r.firstP90,
        heapUsed: r.heap,
        sizeRatio: ratio(r.bundle.bytes, r.base.bytes),
        samples: samples.get(r.bundle),
      })),
    };
    return [s];
  } finally {
    await targets.close();
    await rm(outdir, { recursive: true, force: true });
  }
};
