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
  MIGRATION_SWEEP_INTERVAL_MINUTES,
  MIGRATION_SWEEPER_FUNCTION,
  memoryOf,
  timeoutSecondsOf,
  WEBHOOK_BATCH_SIZE,
  WEBHOOK_DISPATCHER_FUNCTION,
} from '#service/functions.js';
import type { TABLES } from '#service/tables.js';
import type { AwsStandIns } from './aws-stand-ins.js';
import type { dataPaths } from './data-dir.js';
import type { FunctionLoader } from './function-loader.js';
import type { InFlight } from './in-flight.js';
import { perInvocation } from './invoke-store.js';
import { LOCAL_ACCOUNT_ID, LOCAL_FUNCTION_PREFIX, LOCAL_REGION } from './lambda-context.js';
import type { LocalQueue, QueueConsumer } from './queue/queue.js';
import { type LocalSchedule, type ScheduledHandler, startSchedule } from './schedule.js';
import { DEFAULT_CONSUMER_TIMEOUT_MS, type QueueDelivery, type ServiceQueues } from './service-queues.js';
import { onFailureMessage, type StreamHandler } from './streams/stream-poller.js';
import { type StreamTwin, startStreamTwin } from './streams/stream-twin.js';

/** LOCAL_SWEEP_INTERVAL_SECONDS: how often the sweeper of stuck migrations runs (deployed: every 5 minutes). */
export const SWEEP_INTERVAL_ENV = 'LOCAL_SWEEP_INTERVAL_SECONDS';

export interface BackgroundFunctionsOptions {
  functions: FunctionLoader;
  queues: ServiceQueues;
  delivery: QueueDelivery;
  /** Replaces the migration consumer (functions/migration-consumer.ts). */
  consumer?: QueueConsumer | undefined;
  standIns: Pick<AwsStandIns, 'dynamo' | 'embedded'>;
  tables: Record<keyof typeof TABLES, string>;
  /** Runs the tables' streams and the change publisher. */
  changePublisher: boolean;
  /** The stream checkpoints' file, or undefined in memory. */
  paths: ReturnType<typeof dataPaths> | undefined;
  sweepIntervalMs?: number | undefined;
  /** The API's requests, which the stream twin lets go first (local/in-flight.ts). */
  inFlight: InFlight;
  log: (line: string) => void;
}

export interface BackgroundFunctions {
  streams: StreamTwin | undefined;
  sweeper: LocalSchedule;
}

/**
 * The functions no request calls: the queues' consumers, the change publisher on the tables'
 * streams and the sweeper on its schedule, each as AWS runs it (its function's timeout and
 * memory). Their stops are pushed on `cleanups`; the queues stop with the SQS twin.
 */
export const startBackgroundFunctions = async (
  options: BackgroundFunctionsOptions,
  cleanups: (() => Promise<void>)[],
): Promise<BackgroundFunctions> => {
  await attachConsumers(options);
  const streams = options.changePublisher ? await startChangePublisher(options) : undefined;
  if (streams) cleanups.push(() => streams.close());
  const sweeper = await startSweeper(options);
  cleanups.push(() => sweeper.close());
  return { streams, sweeper };
};

/** Each consumer as its event source mapping runs it on AWS. */
const attachConsumers = async ({ functions, queues, delivery, consumer: given }: BackgroundFunctionsOptions) => {
  const consumer = given
    ? perInvocation(given)
    : await functions.load<QueueConsumer>(MIGRATION_CONSUMER_FUNCTION.entry);
  const consume = async (on: LocalQueue, name: string, spec: FunctionSpec, batchSize = 1) =>
    on.attach({
      handler: await functions.load<QueueConsumer>(spec.entry),
      functionName: `${LOCAL_FUNCTION_PREFIX}-${name}`,
      batchSize,
      concurrency: delivery.concurrency ?? 2,
      timeoutMs: timeoutSecondsOf(spec) * 1000,
      memoryMb: memoryOf(spec),
    });
  await consume(queues.erasureQueue, 'ErasureConsumer', ERASURE_CONSUMER_FUNCTION);
  // The webhooks' dispatcher: it delivers to loopback endpoints here (WEBHOOKS_ALLOW_LOOPBACK).
  await consume(queues.webhookQueue, 'WebhookDispatcher', WEBHOOK_DISPATCHER_FUNCTION, WEBHOOK_BATCH_SIZE);
  await consume(queues.exportQueue, 'ExportConsumer', EXPORT_CONSUMER_FUNCTION);
  await consume(queues.importQueue, 'ImportConsumer', IMPORT_CONSUMER_FUNCTION);
  // The migration consumer may be a test double, and its timeout the `queue` option's.
  queues.queue.attach({
    handler: consumer,
    functionName: `${LOCAL_FUNCTION_PREFIX}-MigrationConsumer`,
    batchSize: 1,
    concurrency: delivery.concurrency ?? 2,
    timeoutMs: delivery.consumerTimeoutMs ?? DEFAULT_CONSUMER_TIMEOUT_MS,
    memoryMb: memoryOf(MIGRATION_CONSUMER_FUNCTION),
  });
};

/** The tables' streams feed the change publisher, as its event source mappings do on AWS. */
const startChangePublisher = async ({
  functions,
  queues: { publisherFailureQueue },
  standIns: { dynamo, embedded },
  tables,
  paths,
  inFlight,
  log,
}: BackgroundFunctionsOptions): Promise<StreamTwin> =>
  startStreamTwin({
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
    functionName: `${LOCAL_FUNCTION_PREFIX}-ChangePublisher`,
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
    ...(paths ? { checkpointFile: paths.streams } : {}),
    log,
  });

/** The sweeper of stuck migrations, on a timer as on the deployed schedule rule. */
const startSweeper = async ({
  functions,
  sweepIntervalMs,
  log,
}: BackgroundFunctionsOptions): Promise<LocalSchedule> => {
  const sweepSeconds = Number(process.env[SWEEP_INTERVAL_ENV]);
  return startSchedule({
    handler: await functions.load<ScheduledHandler>(MIGRATION_SWEEPER_FUNCTION.entry),
    functionName: `${LOCAL_FUNCTION_PREFIX}-MigrationSweeper`,
    timeoutMs: timeoutSecondsOf(MIGRATION_SWEEPER_FUNCTION) * 1000,
    memoryMb: memoryOf(MIGRATION_SWEEPER_FUNCTION),
    intervalMs: sweepIntervalMs ?? (sweepSeconds > 0 ? sweepSeconds * 1000 : MIGRATION_SWEEP_INTERVAL_MINUTES * 60_000),
    log,
  });
};
