import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  CHANGE_PUBLISHER_BATCH_SIZE,
  CHANGE_PUBLISHER_BISECT_ON_ERROR,
  CHANGE_PUBLISHER_FUNCTION,
  CHANGE_PUBLISHER_MAX_RETRY_ATTEMPTS,
  ERASURE_CONSUMER_FUNCTION,
  EXPORT_CONSUMER_FUNCTION,
  type FunctionSpec,
  IMPORT_CONSUMER_FUNCTION,
  MIGRATION_CONSUMER_FUNCTION,
  MIGRATION_MAX_RECEIVE_COUNT,
  MIGRATION_SWEEP_INTERVAL_MINUTES,
  MIGRATION_SWEEPER_FUNCTION,
  memoryOf,
  NOT_FOUND_FUNCTION,
  timeoutSecondsOf,
  WEBHOOK_BATCH_SIZE,
  WEBHOOK_DISPATCHER_FUNCTION,
  WEBHOOK_MAX_RECEIVE_COUNT,
} from '#service/functions.js';
import { PUBLIC_ROUTES, publicFunctionSpecOf } from '#service/routes.js';
import { TABLES } from '#service/tables.js';
import { EVENT_SOURCE } from '#shared/events/events.js';
import { FILE_FOLDERS } from '#shared/files/keys.js';
import { ENV } from '#shared/platform/environment.js';
import { MARSHALL_OPTIONS } from '#shared/platform/marshall-options.js';
import { WEBHOOK_EVENT_TYPES } from '#shared/webhooks/model.js';
import { apiPages } from './api-pages.js';
import { type AwsCredential, newAwsCredential, readAwsCredential, writeAwsCredential } from './aws-credential.js';
import { type AwsCall, recordCalls } from './call-recorder.js';
import {
  assertDynamoFilesFree,
  DataDirLockedError,
  dataPaths,
  readRunningServer,
  removeRunningServer,
  secureDataDir,
  writeRunningServer,
} from './data-dir.js';
import { type EmbeddedDynamo, ensureTables, startEmbeddedDynamo } from './dynamo.js';
import { type LocalEventBridge, startLocalEventBridge } from './events/local-event-bridge.js';
import { type LocalS3, startLocalS3, uploadNotice } from './files/local-s3.js';
import { type FunctionLoader, IN_PROCESS, type RouteFunction } from './function-loader.js';
import { InFlight } from './in-flight.js';
import { perInvocation, useInvokeStore } from './invoke-store.js';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './lambda-context.js';
import { hostPort } from './listen.js';
import { ensureLocalCredential, type LocalCredential } from './local-credential.js';
import { assertPortFree, holdFreePort, isAddressInUse, namingPort, PortInUseError } from './ports.js';
import { type LocalSqs, startLocalSqs } from './queue/local-sqs.js';
import type { LocalQueue, QueueConsumer } from './queue/queue.js';
import { routeFunctions } from './route-functions.js';
import { type LocalSchedule, type ScheduledHandler, startSchedule } from './schedule.js';
import { type LocalSecretsManager, startLocalSecretsManager } from './secrets/local-secrets-manager.js';
import { type ApiHandler, createApiServer, type LocalFunction, type PrefixRoute } from './server.js';
import { exportLine, writeShellEnv } from './shell-env.js';
import { onFailureMessage, type StreamHandler } from './streams/stream-poller.js';
import { type StreamTwin, startStreamTwin } from './streams/stream-twin.js';

export const MIGRATION_QUEUE_NAME = 'migrations';
export const MIGRATION_DLQ_NAME = 'migrations-dlq';
export const ERASURE_QUEUE_NAME = 'erasures';
export const ERASURE_DLQ_NAME = 'erasures-dlq';
export const WEBHOOK_QUEUE_NAME = 'webhooks';
export const WEBHOOK_DLQ_NAME = 'webhooks-dlq';
export const EXPORT_QUEUE_NAME = 'exports';
export const EXPORT_DLQ_NAME = 'exports-dlq';
export const IMPORT_QUEUE_NAME = 'imports';
export const IMPORT_DLQ_NAME = 'imports-dlq';
/** The change publisher's on-failure destination: descriptions of stream batches given up on. */
export const PUBLISHER_FAILURES_QUEUE_NAME = 'change-publisher-failures';
/** The bus the change publisher puts events on (EVENT_BUS_NAME), in the EventBridge twin. */
export const LOCAL_EVENT_BUS_NAME = 'notification-preferences-local';
/** Function and queue settings are the deployed ones (service/functions.ts), which the stack reads too. */
export const DEFAULT_MAX_RECEIVE_COUNT = MIGRATION_MAX_RECEIVE_COUNT;
export const DEFAULT_CONSUMER_TIMEOUT_MS = timeoutSecondsOf(MIGRATION_CONSUMER_FUNCTION) * 1000;
/** Locally a failed message is retried after 2 s instead of the deployed visibility timeout (6 min). */
export const DEFAULT_RETRY_DELAY_MS = 2_000;
/**
 * The functions' clients give a silent DynamoDB or SQS connection 1 s when deployed; DynamoDB
 * Local on a busy laptop takes longer (the 1,200 PartiQL batches of a large set queue up in one JVM), and
 * with one store and nothing to fail over to, each retry only adds to its load (5xx answers on a
 * slow machine; a write retried after its first attempt took effect also costs its batch again).
 * Locally they wait an API function's whole time; a route's deadline still ends a hung call in 503.
 */
export const LOCAL_DEPENDENCY_TIMEOUT_MS = 10_000;
/** LOCAL_SWEEP_INTERVAL_SECONDS: how often the sweeper of stuck migrations runs (deployed: every 5 minutes). */
export const SWEEP_INTERVAL_ENV = 'LOCAL_SWEEP_INTERVAL_SECONDS';
const FUNCTION_PREFIX = 'notification-preferences-local';

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
  queue?: {
    maxReceiveCount?: number;
    retryDelayMs?: number;
    consumerTimeoutMs?: number;
    concurrency?: number;
  };
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

export interface LocalRuntime {
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
  queue: LocalQueue;
  deadLetterQueue: LocalQueue;
  /** The erasure queue and its dead letters. */
  erasureQueue: LocalQueue;
  erasureDeadLetterQueue: LocalQueue;
  /** The webhooks queue (the bus's events, by its rule, and the dispatcher's retries) and its dead letters. */
  webhookQueue: LocalQueue;
  webhookDeadLetterQueue: LocalQueue;
  /** The export queue and its dead letters. */
  exportQueue: LocalQueue;
  exportDeadLetterQueue: LocalQueue;
  /** The import queue (uploads' notices and the engine's messages) and its dead letters. */
  importQueue: LocalQueue;
  importDeadLetterQueue: LocalQueue;
  /** Where the stream twin describes the batches the change publisher failed for good. */
  publisherFailureQueue: LocalQueue;
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

// The handler modules build their clients and read their environment once, at import. A
// second runtime in the same process therefore reuses the first one's ports and AWS credential,
// so that those clients keep reaching it.
let firstPorts:
  | {
      api: number;
      dynamo: number;
      sqs: number;
      events: number;
      secrets: number;
      files: number;
    }
  | undefined;
let firstCredential: AwsCredential | undefined;
let firstInMemory = false;
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
  // A second start must listen on the first one's ports (above). Between the two, another
  // process's outgoing connection can hold one of them for a while: such a start tries again.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start(options, cleanups, cleanup);
    } catch (error) {
      await cleanup();
      const reusedPortTaken = firstPorts !== undefined && (isAddressInUse(error) || error instanceof PortInUseError);
      if (!reusedPortTaken || attempt === REUSED_PORT_ATTEMPTS) {
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
    queue: queueOptions = {},
    log = () => {},
    functions = IN_PROCESS,
    ...options
  }: LocalRuntimeOptions,
  cleanups: (() => Promise<void>)[],
  cleanup: () => Promise<void>,
): Promise<LocalRuntime> => {
  if (!inMemory && !givenDataDir) throw new Error('A persistent local runtime needs a data directory.');
  // Its functions would keep the in-memory store's endpoint and credential.
  if (!inMemory && firstPorts && firstInMemory) {
    throw new Error('A persistent local runtime cannot follow an in-memory one in the same process.');
  }
  if (options.recordAwsCalls && functions !== IN_PROCESS) {
    throw new Error('recordAwsCalls sees the AWS calls of functions that run in this process only.');
  }
  // Closed last: the queues, streams and API stop first, and may still invoke functions meanwhile.
  if (functions.close) cleanups.push(() => functions.close?.() ?? Promise.resolve());
  const dataDir = givenDataDir ?? '';
  const paths = dataPaths(dataDir);
  if (!inMemory) {
    await secureDataDir(dataDir);
    try {
      await assertDynamoFilesFree(paths.dynamo);
    } catch (error) {
      // The files are held: name the server that holds them when it left its address behind.
      const other = error instanceof DataDirLockedError ? await readRunningServer(dataDir) : undefined;
      if (other && other.pid !== process.pid) {
        throw new Error(
          `A local server (pid ${other.pid}) already serves ${other.apiUrl} from ${dataDir}. ` +
            'Stop it, or start this one with another DATA_DIR or --in-memory, and another --port (or --port 0, any free one).',
        );
      }
      throw error;
    }
  }

  // The API's port is known before the functions load: their links are built on its URL. A free
  // one is held until the API listens on it: the JVM starts meanwhile, and another process's
  // outgoing connection could take a port that was merely found free.
  const given = port || firstPorts?.api;
  const held = given ? undefined : await holdFreePort(host);
  if (held) cleanups.push(() => held.release());
  const apiPort = given || (held?.port as number);
  const dynamoPort = firstPorts?.dynamo ?? options.dynamoPort ?? 0;
  const sqsPort = firstPorts?.sqs ?? options.sqsPort ?? 0;
  // A taken port fails the start before the JVM is launched (DynamoDB Local checks its own).
  if (!held) await assertPortFree('api', host, apiPort);
  await assertPortFree('sqs', '127.0.0.1', sqsPort);
  // The data directory's credential, or a new one (the first of this process, if any, wins: the
  // functions keep it). Its access key picks DynamoDB Local's database, so a data directory
  // whose key changes has its tables moved to the new key's.
  const saved = inMemory ? undefined : await readAwsCredential(paths.awsCredential);
  const awsCredential = firstCredential ?? saved ?? newAwsCredential();
  const embedded: EmbeddedDynamo = await startEmbeddedDynamo({
    ...(inMemory ? {} : { path: paths.dynamo }),
    port: dynamoPort,
    credentials: awsCredential,
    formerKey: saved?.accessKeyId,
    beforeStart: async () => {
      if (!inMemory && saved?.accessKeyId !== awsCredential.accessKeyId) {
        await writeAwsCredential(paths.awsCredential, awsCredential);
      }
    },
  });
  cleanups.push(() => embedded.close());
  const dynamo = new DynamoDBClient({
    endpoint: embedded.endpoint,
    region: LOCAL_REGION,
    // The access key picks the database (local/dynamo.ts).
    credentials: embedded.credentials,
  });
  cleanups.push(async () => dynamo.destroy());
  const doc = DynamoDBDocumentClient.from(dynamo, { marshallOptions: MARSHALL_OPTIONS });
  await ensureTables(dynamo);

  const sqs: LocalSqs = await startLocalSqs({
    accessKeyId: awsCredential.accessKeyId,
    host: '127.0.0.1',
    port: sqsPort,
    region: LOCAL_REGION,
    ...(inMemory ? {} : { persistFile: paths.queues }),
    log,
  }).catch(namingPort('sqs', '127.0.0.1', sqsPort));
  cleanups.push(() => sqs.close());
  // The webhooks queue, made below with the others: the bus's rule sends it the events endpoints subscribe to.
  const webhookTarget: { queue?: LocalQueue } = {};
  // Its port is nobody's business but the functions': a free one (the same for a second runtime).
  const events: LocalEventBridge = await startLocalEventBridge({
    accessKeyId: awsCredential.accessKeyId,
    busName: LOCAL_EVENT_BUS_NAME,
    port: firstPorts?.events ?? 0,
    ...(inMemory ? {} : { file: paths.events }),
    ...(options.eventsFileMaxBytes ? { maxFileBytes: options.eventsFileMaxBytes } : {}),
    ...(options.printEvents ? { print: log } : {}),
    rules: [
      {
        source: [EVENT_SOURCE],
        detailType: Object.values(WEBHOOK_EVENT_TYPES),
        target: async (event) => {
          webhookTarget.queue?.send({ body: JSON.stringify(event) });
          await webhookTarget.queue?.persisted();
        },
      },
    ],
    log,
  });
  cleanups.push(() => events.close());
  // The link keys, as the functions read them on AWS: from "Secrets Manager".
  const secrets: LocalSecretsManager = await startLocalSecretsManager({
    accessKeyId: awsCredential.accessKeyId,
    ...(inMemory ? {} : { keyFile: paths.linkKeys }),
    port: firstPorts?.secrets ?? 0,
    log,
  });
  cleanups.push(() => secrets.close());
  // The files bucket, in the data directory (in memory: a temporary directory, removed on close).
  // An upload to the imports folder notifies the import queue, made below, as the stack's bucket does.
  const importTarget: { queue?: LocalQueue } = {};
  const files: LocalS3 = await startLocalS3({
    credential: awsCredential,
    region: LOCAL_REGION,
    onObjectCreated: (key, size) => {
      if (key.startsWith(`${FILE_FOLDERS.imports}/`)) importTarget.queue?.send({ body: uploadNotice(key, size) });
    },
    ...(inMemory ? {} : { directory: paths.files }),
    port: firstPorts?.files ?? 0,
  });
  cleanups.push(() => files.close());
  if (!firstPorts) firstInMemory = inMemory;
  firstCredential ??= awsCredential;
  firstPorts ??= {
    api: apiPort,
    dynamo: portOf(embedded.endpoint),
    sqs: portOf(sqs.endpoint),
    events: portOf(events.endpoint),
    secrets: portOf(secrets.endpoint),
    files: portOf(files.endpoint),
  };
  const maxReceiveCount = queueOptions.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT;
  const deadLetterQueue = sqs.createQueue(MIGRATION_DLQ_NAME);
  const queue = sqs.createQueue(MIGRATION_QUEUE_NAME, {
    deadLetter: { queue: deadLetterQueue, maxReceiveCount },
    retryDelayMs: queueOptions.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS,
  });
  // The erasure queue: the same delivery settings as the migration queue's.
  const erasureDeadLetterQueue = sqs.createQueue(ERASURE_DLQ_NAME);
  const erasureQueue = sqs.createQueue(ERASURE_QUEUE_NAME, {
    deadLetter: { queue: erasureDeadLetterQueue, maxReceiveCount },
    retryDelayMs: queueOptions.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS,
  });
  const webhookDeadLetterQueue = sqs.createQueue(WEBHOOK_DLQ_NAME);
  const webhookQueue = sqs.createQueue(WEBHOOK_QUEUE_NAME, {
    deadLetter: { queue: webhookDeadLetterQueue, maxReceiveCount: WEBHOOK_MAX_RECEIVE_COUNT },
    retryDelayMs: queueOptions.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS,
  });
  webhookTarget.queue = webhookQueue;
  // The export and import queues: the same delivery settings.
  const withDeadLetters = (name: string, deadLetterName: string) => {
    const deadLetterQueue = sqs.createQueue(deadLetterName);
    const workQueue = sqs.createQueue(name, {
      deadLetter: { queue: deadLetterQueue, maxReceiveCount },
      retryDelayMs: queueOptions.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS,
    });
    return [workQueue, deadLetterQueue] as const;
  };
  const [exportQueue, exportDeadLetterQueue] = withDeadLetters(EXPORT_QUEUE_NAME, EXPORT_DLQ_NAME);
  const [importQueue, importDeadLetterQueue] = withDeadLetters(IMPORT_QUEUE_NAME, IMPORT_DLQ_NAME);
  importTarget.queue = importQueue;
  const publisherFailureQueue = sqs.createQueue(PUBLISHER_FAILURES_QUEUE_NAME);
  const restoredMessages = await sqs.restore();

  // What the stack sets on the functions, pointed at the local twins. Set before the handler
  // modules load: they read it at import.
  const tables = Object.fromEntries(Object.entries(TABLES).map(([key, t]) => [key, t.localName])) as Record<
    keyof typeof TABLES,
    string
  >;
  const env: Record<string, string> = {
    ...Object.fromEntries(Object.values(TABLES).map((t) => [t.env, t.localName])),
    [ENV.migrationQueueUrl]: queue.url,
    [ENV.migrationMaxReceiveCount]: String(maxReceiveCount),
    [ENV.erasureQueueUrl]: erasureQueue.url,
    [ENV.erasureMaxReceiveCount]: String(maxReceiveCount),
    [ENV.webhookQueueUrl]: webhookQueue.url,
    [ENV.exportQueueUrl]: exportQueue.url,
    [ENV.exportMaxReceiveCount]: String(maxReceiveCount),
    [ENV.importQueueUrl]: importQueue.url,
    [ENV.importMaxReceiveCount]: String(maxReceiveCount),
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: embedded.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: embedded.credentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: embedded.endpoint,
    AWS_ENDPOINT_URL_SQS: sqs.endpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: events.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    AWS_ENDPOINT_URL_S3: files.endpoint,
    [ENV.filesBucket]: files.bucket,
    [ENV.eventBusName]: LOCAL_EVENT_BUS_NAME,
    // Links on the API's own URL, as a stage sets its domain: never the Host a request names.
    [ENV.linksBaseUrl]:
      process.env[ENV.linksBaseUrl] || `http://${hostPort(host === '0.0.0.0' ? '127.0.0.1' : host, apiPort)}`,
    [ENV.linkKeysSecret]: secrets.secretId,
    [ENV.dependencyTimeoutMs]: process.env[ENV.dependencyTimeoutMs] || String(LOCAL_DEPENDENCY_TIMEOUT_MS),
    // Webhooks reach receivers on this machine (http or https to a loopback host); never deployed.
    [ENV.webhooksAllowLoopback]: '1',
    // A policy set on a laptop applies to the next request, unless a developer asks for the cache.
    [ENV.policyCacheSeconds]: process.env[ENV.policyCacheSeconds] || '0',
    ...options.env,
  };
  Object.assign(process.env, env);
  useInvokeStore();
  if (options.recordAwsCalls) {
    // The functions' shared clients, loaded after the environment is set: they read it on import.
    const clients = [
      (await import('#shared/platform/aws-clients.js')).documentClient,
      (await import('#shared/platform/sqs-client.js')).sqsClient,
      (await import('#shared/platform/events-client.js')).eventBridgeClient,
      (await import('#shared/platform/secrets-client.js')).secretsClient,
      (await import('#shared/platform/s3-client.js')).s3Client,
    ];
    const recording = recordCalls(clients, `${FUNCTION_PREFIX}-`, options.recordAwsCalls);
    cleanups.push(async () => recording.stop());
  }
  // A developer's real session (or profile) must not leak into the local twins' requests.
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;

  const credential = await ensureLocalCredential({
    client: doc,
    tableName: TABLES.credentials.localName,
    ...(inMemory ? {} : { file: paths.credential }),
    apiKey: options.apiKey,
    token: options.token,
  });

  const localFunction = async (
    name: string,
    spec: Pick<FunctionSpec, 'entry' | 'timeoutSeconds' | 'memoryMb'>,
  ): Promise<LocalFunction> => ({
    name: `${FUNCTION_PREFIX}-${name}`,
    handler: await functions.load<ApiHandler>(spec.entry),
    timeoutMs: timeoutSecondsOf(spec) * 1000,
    memoryMb: memoryOf(spec),
  });
  const routeMap = async (list: RouteFunction[]) => {
    const map = new Map<string, LocalFunction>();
    for (const route of list) map.set(route.path, await localFunction(route.operationId, route));
    return map;
  };
  const routes = await routeMap(routeFunctions());
  // A loader that reloads the code tells the routes it found there: an added or moved route
  // answers without a restart. The server reads this map on every request.
  functions.onRoutes?.((list) => {
    routeMap(list).then(
      (fresh) => {
        routes.clear();
        for (const [path, fn] of fresh) routes.set(path, fn);
      },
      (error: Error) => log(`[dev] routes not updated: ${error.message}`),
    );
  });
  // The pages of the links in emails: every path under their prefix, as `ANY /u/{proxy+}` on AWS.
  const prefixRoutes: PrefixRoute[] = [];
  for (const route of PUBLIC_ROUTES) {
    prefixRoutes.push({ prefix: route.prefix, fn: await localFunction(route.id, publicFunctionSpecOf(route)) });
  }
  const fallback = await localFunction('NotFound', NOT_FOUND_FUNCTION);
  const consumer = options.consumer
    ? perInvocation(options.consumer)
    : await functions.load<QueueConsumer>(MIGRATION_CONSUMER_FUNCTION.entry);
  // Each consumer as its event source mapping runs it on AWS: its function's timeout and memory.
  const consume = async (on: LocalQueue, name: string, spec: FunctionSpec, batchSize = 1) =>
    on.attach({
      handler: await functions.load<QueueConsumer>(spec.entry),
      functionName: `${FUNCTION_PREFIX}-${name}`,
      batchSize,
      concurrency: queueOptions.concurrency ?? 2,
      timeoutMs: timeoutSecondsOf(spec) * 1000,
      memoryMb: memoryOf(spec),
    });
  await consume(erasureQueue, 'ErasureConsumer', ERASURE_CONSUMER_FUNCTION);
  // The webhooks' dispatcher: it delivers to loopback endpoints here (WEBHOOKS_ALLOW_LOOPBACK).
  await consume(webhookQueue, 'WebhookDispatcher', WEBHOOK_DISPATCHER_FUNCTION, WEBHOOK_BATCH_SIZE);
  await consume(exportQueue, 'ExportConsumer', EXPORT_CONSUMER_FUNCTION);
  await consume(importQueue, 'ImportConsumer', IMPORT_CONSUMER_FUNCTION);
  queue.attach({
    handler: consumer,
    functionName: `${FUNCTION_PREFIX}-MigrationConsumer`,
    batchSize: 1,
    concurrency: queueOptions.concurrency ?? 2,
    timeoutMs: queueOptions.consumerTimeoutMs ?? DEFAULT_CONSUMER_TIMEOUT_MS,
    memoryMb: memoryOf(MIGRATION_CONSUMER_FUNCTION),
  });

  // The API's requests, which the stream twin lets go first (local/in-flight.ts).
  const inFlight = new InFlight();
  // The tables' streams feed the change publisher, as its event source mappings do on AWS.
  const streams = !(options.changePublisher ?? true)
    ? undefined
    : await startStreamTwin({
        dynamo,
        endpoint: embedded.endpoint,
        region: LOCAL_REGION,
        credentials: embedded.credentials,
        tables: (CHANGE_PUBLISHER_FUNCTION.streams as readonly (keyof typeof TABLES)[]).map((name) => tables[name]),
        filters: Object.fromEntries(
          Object.entries(CHANGE_PUBLISHER_FUNCTION.streamFilters).map(([name, filters]) => [
            tables[name as keyof typeof TABLES],
            filters,
          ]),
        ),
        handler: await functions.load<StreamHandler>(CHANGE_PUBLISHER_FUNCTION.entry),
        functionName: `${FUNCTION_PREFIX}-ChangePublisher`,
        timeoutMs: timeoutSecondsOf(CHANGE_PUBLISHER_FUNCTION) * 1000,
        memoryMb: memoryOf(CHANGE_PUBLISHER_FUNCTION),
        yieldTo: inFlight,
        batchSize: CHANGE_PUBLISHER_BATCH_SIZE,
        maxRetryAttempts: CHANGE_PUBLISHER_MAX_RETRY_ATTEMPTS,
        bisectOnError: CHANGE_PUBLISHER_BISECT_ON_ERROR,
        onFailure: async (failure) => {
          publisherFailureQueue.send({
            body: JSON.stringify(onFailureMessage(failure, LOCAL_REGION, LOCAL_ACCOUNT_ID)),
          });
          await publisherFailureQueue.persisted();
        },
        ...(inMemory ? {} : { checkpointFile: paths.streams }),
        log,
      });
  if (streams) cleanups.push(() => streams.close());

  // The sweeper of stuck migrations, on a timer as on the deployed schedule rule.
  const sweepSeconds = Number(process.env[SWEEP_INTERVAL_ENV]);
  const sweeper = startSchedule({
    handler: await functions.load<ScheduledHandler>(MIGRATION_SWEEPER_FUNCTION.entry),
    functionName: `${FUNCTION_PREFIX}-MigrationSweeper`,
    timeoutMs: timeoutSecondsOf(MIGRATION_SWEEPER_FUNCTION) * 1000,
    memoryMb: memoryOf(MIGRATION_SWEEPER_FUNCTION),
    intervalMs:
      options.sweepIntervalMs ?? (sweepSeconds > 0 ? sweepSeconds * 1000 : MIGRATION_SWEEP_INTERVAL_MINUTES * 60_000),
    log,
  });
  cleanups.push(() => sweeper.close());

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
    queueUrl: queue.url,
    deadLetterQueueUrl: deadLetterQueue.url,
    queue,
    deadLetterQueue,
    erasureQueue,
    exportQueue,
    exportDeadLetterQueue,
    importQueue,
    importDeadLetterQueue,
    erasureDeadLetterQueue,
    webhookQueue,
    webhookDeadLetterQueue,
    publisherFailureQueue,
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
