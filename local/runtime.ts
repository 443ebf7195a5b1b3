import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TABLES } from '#service/tables.js';
import { loadApiFunctions } from './api-functions.js';
import { apiPages } from './api-pages.js';
import type { AwsCredential } from './aws-credential.js';
import { startAwsStandIns } from './aws-stand-ins.js';
import { startBackgroundFunctions } from './background-functions.js';
import type { AwsCall } from './call-recorder.js';
import { claimDataDir, dataPaths, removeRunningServer, writeRunningServer } from './data-dir.js';
import { localTableNames, setFunctionEnv } from './function-env.js';
import { type FunctionLoader, IN_PROCESS } from './function-loader.js';
import { InFlight } from './in-flight.js';
import { ensureLocalCredential, type LocalCredential } from './local-credential.js';
import { namingPort } from './ports.js';
import type { LocalQueue, QueueConsumer } from './queue/queue.js';
import {
  firstCredential,
  followsInMemoryRuntime,
  isReusedPortTaken,
  pickPorts,
  rememberFirstRuntime,
} from './runtime-ports.js';
import type { LocalSchedule } from './schedule.js';
import { createApiServer, type LocalFunction } from './server.js';
import { createServiceQueues, type QueueDelivery, type ServiceQueues } from './service-queues.js';
import { exportLine, writeShellEnv } from './shell-env.js';
import type { StreamTwin } from './streams/stream-twin.js';

/**
 * The local twin's runtime: DynamoDB Local and the AWS stand-ins (local/aws-stand-ins.ts), the
 * service's queues (local/service-queues.ts), the functions' environment (local/function-env.ts),
 * the functions behind the API (local/api-functions.ts) and behind the queues, streams and
 * schedule (local/background-functions.ts), and the HTTP server, started in that order and
 * stopped in the reverse one.
 */

export interface LocalRuntimeOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Ports of the embedded DynamoDB and the SQS twin (on 127.0.0.1); 0 or none picks free ones. */
  dynamoPort?: number;
  sqsPort?: number;
  /** A throw-away store: nothing is read from or written to the data directory. */
  inMemory?: boolean;
  /** Where the data persists; required unless inMemory. */
  dataDir?: string;
  /** Fix the local credential (LOCAL_API_KEY / LOCAL_AUTH_TOKEN). */
  apiKey?: string | undefined;
  token?: string | undefined;
  queue?: QueueDelivery;
  /** Replaces the migration consumer (functions/migration-consumer.ts), e.g. with a test double. */
  consumer?: QueueConsumer;
  /**
   * How often the sweeper of stuck migrations runs (default: LOCAL_SWEEP_INTERVAL_SECONDS, else
   * the deployed 5 minutes). Its stall limit is MIGRATION_STALL_LIMIT_SECONDS, e.g. in `env`.
   */
  sweepIntervalMs?: number;
  /**
   * Runs the tables' streams and the change publisher (default true). Off for measurements of
   * the other functions: on AWS the publisher is a function of its own, not work in theirs.
   */
  changePublisher?: boolean;
  /** Prints one line per event the service publishes (npm start does). */
  printEvents?: boolean;
  /** How long a stop waits for the API's requests under way at most (local/server.ts ApiServerOptions.drainMs). */
  drainMs?: number;
  /**
   * Writes the banner's `export` line to the data directory's env.sh, for `source` (default).
   * A tool that runs the twin for itself (the seed) does not: its port dies with it.
   */
  shellEnvFile?: boolean;
  /** Size past which events.jsonl is rotated (default: local/events/events-file.ts). */
  eventsFileMaxBytes?: number;
  /** Replaces every HTTP function's deployed timeout (their contexts count down from it). */
  handlerTimeoutMs?: number;
  /** Extra environment for the functions, set before they are loaded. */
  env?: Record<string, string>;
  /** One line per request and per queue delivery. */
  log?: (line: string) => void;
  /** Told every AWS call a function makes (local/call-recorder.ts), for the test of the stack's grants. */
  recordAwsCalls?: (call: AwsCall) => void;
  /**
   * Where the functions run: imported into this process (the default), or in a process that a
   * code change replaces (`npm run dev`, local/reload/). The loader is closed with the runtime.
   */
  functions?: FunctionLoader;
}

/** A running twin: its addresses and credential, its service's queues (service-queues.ts), its stores. */
export interface LocalRuntime extends ServiceQueues {
  baseUrl: string;
  apiKey: string;
  token: string;
  credential: LocalCredential['action'];
  /** When the saved credential was replaced: its key and why (revoked, expired or changed). */
  replacedCredential: LocalCredential['replaced'];
  /** The data directory, or undefined in memory. */
  dataDir: string | undefined;
  /** What DynamoDB Local and the AWS stand-ins accept (local/aws-credential.ts): the functions sign with it. */
  awsCredential: AwsCredential;
  dynamoEndpoint: string;
  sqsEndpoint: string;
  /** The EventBridge twin, which the change publisher puts its events on. */
  eventsEndpoint: string;
  /** The Secrets Manager stand-in, which serves the link keys to the functions. */
  secretsEndpoint: string;
  /** The S3 stand-in, which keeps the files bucket (import and export files) and serves its presigned URLs. */
  filesEndpoint: string;
  filesBucket: string;
  /** The file of the link keys (undefined in memory). */
  linkKeysFile: string | undefined;
  queueUrl: string;
  deadLetterQueueUrl: string;
  /** Every queue of the SQS twin, dead-letter queues included, in the order created. */
  queues: readonly LocalQueue[];
  /** Messages found in the queue snapshot at start. */
  restoredMessages: number;
  /** The HTTP functions by route path: name, and the deployed timeout and memory they run with. */
  functions: ReadonlyMap<string, Omit<LocalFunction, 'handler'>>;
  dynamo: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  tables: Record<keyof typeof TABLES, string>;
  /** The twin of the tables' streams and the change publisher behind them (unless turned off). */
  streams: StreamTwin | undefined;
  /** The schedule that runs the sweeper of stuck migrations (functions/migration-sweeper.ts). */
  sweeper: LocalSchedule;
  /** Where events are appended, or undefined in memory (printed only). */
  eventsFile: string | undefined;
  /** `export BASE_URL=… API_KEY=… AUTH_TOKEN=… DATA_DIR=…`: what a shell needs to call this twin. */
  exportLine: string;
  /** The same line in the data directory, for `source`; undefined in memory (nothing is written). */
  shellEnvFile: string | undefined;
  close(): Promise<void>;
}
let running = false;
const REUSED_PORT_ATTEMPTS = 5;

const portOf = (endpoint: string) => Number(new URL(endpoint).port);

export const startLocalRuntime = async (options: LocalRuntimeOptions): Promise<LocalRuntime> => {
  if (running) throw new Error('A local runtime is already running in this process; close it first.');
  running = true;
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse().splice(0)) await step().catch(() => {});
  };
  // A second start must listen on the first one's ports (local/runtime-ports.ts). Between the
  // two, another process's outgoing connection can hold one of them for a while: such a start
  // tries again.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start(options, cleanups, cleanup);
    } catch (error) {
      await cleanup();
      if (!isReusedPortTaken(error) || attempt === REUSED_PORT_ATTEMPTS) {
        running = false;
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000 * attempt));
    }
  }
};

const start = async (
  {
    host = '127.0.0.1',
    port = 3000,
    inMemory = false,
    dataDir: givenDataDir,
    queue: delivery = {},
    log = () => {},
    functions = IN_PROCESS,
    ...options
  }: LocalRuntimeOptions,
  cleanups: (() => Promise<void>)[],
  cleanup: () => Promise<void>,
): Promise<LocalRuntime> => {
  if (!inMemory && !givenDataDir) throw new Error('A persistent local runtime needs a data directory.');
  // Its functions would keep the in-memory store's endpoint and credential.
  if (!inMemory && followsInMemoryRuntime()) {
    throw new Error('A persistent local runtime cannot follow an in-memory one in the same process.');
  }
  if (options.recordAwsCalls && functions !== IN_PROCESS) {
    throw new Error('recordAwsCalls sees the AWS calls of functions that run in this process only.');
  }
  // Closed last: the queues, streams and API stop first, and may still invoke functions meanwhile.
  if (functions.close) cleanups.push(() => functions.close?.() ?? Promise.resolve());
  const dataDir = givenDataDir ?? '';
  const paths = dataPaths(dataDir);
  if (!inMemory) await claimDataDir(dataDir);

  const { held, ...ports } = await pickPorts(
    { host, port, dynamoPort: options.dynamoPort, sqsPort: options.sqsPort },
    cleanups,
  );
  const apiPort = ports.api;
  const standIns = await startAwsStandIns(
    {
      inMemory,
      paths,
      ports,
      credential: firstCredential(),
      eventsFileMaxBytes: options.eventsFileMaxBytes,
      printEvents: options.printEvents,
      log,
    },
    cleanups,
  );
  const { awsCredential, embedded, dynamo, doc, sqs, events, secrets, files } = standIns;
  rememberFirstRuntime(
    {
      api: apiPort,
      dynamo: portOf(embedded.endpoint),
      sqs: portOf(sqs.endpoint),
      events: portOf(events.endpoint),
      secrets: portOf(secrets.endpoint),
      files: portOf(files.endpoint),
    },
    awsCredential,
    inMemory,
  );
  const queues = createServiceQueues(sqs, delivery);
  standIns.webhookTarget.queue = queues.webhookQueue;
  standIns.importTarget.queue = queues.importQueue;
  const restoredMessages = await sqs.restore();

  const tables = localTableNames();
  await setFunctionEnv(
    { host, apiPort, standIns, queues, env: options.env, recordAwsCalls: options.recordAwsCalls },
    cleanups,
  );

  const credential = await ensureLocalCredential({
    client: doc,
    tableName: tables.credentials,
    ...(inMemory ? {} : { file: paths.credential }),
    apiKey: options.apiKey,
    token: options.token,
  });

  const { routes, prefixRoutes, fallback } = await loadApiFunctions(functions, log);
  const inFlight = new InFlight();
  const { streams, sweeper } = await startBackgroundFunctions(
    {
      functions,
      queues,
      delivery,
      consumer: options.consumer,
      standIns,
      tables,
      changePublisher: options.changePublisher ?? true,
      paths: inMemory ? undefined : paths,
      sweepIntervalMs: options.sweepIntervalMs,
      inFlight,
      log,
    },
    cleanups,
  );

  const api = createApiServer({
    routes,
    prefixRoutes,
    fallback,
    ...(options.handlerTimeoutMs === undefined ? {} : { timeoutOverrideMs: options.handlerTimeoutMs }),
    pages: await apiPages(),
    inFlight,
    ...(options.drainMs === undefined ? {} : { drainMs: options.drainMs }),
    log,
  });
  await held?.release();
  const baseUrl = await api.listen(apiPort, host).catch(namingPort('api', host, apiPort));
  cleanups.push(() => api.close());

  if (!inMemory) {
    await writeRunningServer(dataDir, {
      pid: process.pid,
      apiUrl: baseUrl,
      dynamoEndpoint: embedded.endpoint,
      sqsEndpoint: sqs.endpoint,
      secretsEndpoint: secrets.endpoint,
      filesEndpoint: files.endpoint,
      startedAt: new Date().toISOString(),
    });
    cleanups.push(() => removeRunningServer(dataDir));
  }
  const shellEnv = {
    baseUrl,
    apiKey: credential.apiKey,
    token: credential.token,
    dataDir: inMemory ? undefined : dataDir,
    ...(inMemory ? { awsCredential } : {}),
  };
  // Kept after a stop, like the credential file: the next start rewrites it.
  const writesShellEnv = !inMemory && (options.shellEnvFile ?? true);
  if (writesShellEnv) await writeShellEnv(paths.shellEnv, shellEnv);

  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    apiKey: credential.apiKey,
    token: credential.token,
    credential: credential.action,
    replacedCredential: credential.replaced,
    dataDir: inMemory ? undefined : dataDir,
    awsCredential,
    dynamoEndpoint: embedded.endpoint,
    sqsEndpoint: sqs.endpoint,
    eventsEndpoint: events.endpoint,
    secretsEndpoint: secrets.endpoint,
    filesEndpoint: files.endpoint,
    filesBucket: files.bucket,
    linkKeysFile: inMemory ? undefined : paths.linkKeys,
    queueUrl: queues.queue.url,
    deadLetterQueueUrl: queues.deadLetterQueue.url,
    ...queues,
    queues: sqs.queues(),
    restoredMessages,
    functions: new Map([...routes].map(([path, { handler: _handler, ...fn }]) => [path, fn])),
    dynamo,
    doc,
    tables,
    streams,
    sweeper,
    eventsFile: inMemory ? undefined : paths.events,
    exportLine: exportLine(shellEnv),
    shellEnvFile: writesShellEnv ? paths.shellEnv : undefined,
    close: () => {
      closing ??= cleanup().finally(() => {
        running = false;
      });
      return closing;
    },
  };
};
