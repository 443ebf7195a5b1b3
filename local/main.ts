import { parseArgs } from 'node:util';
import { REPO_ROOT } from '#service/repository-root.js';
import { banner } from './banner.js';
import { resolveDataDir } from './data-dir.js';
import { PortInUseError, SamePortError, type TwinPorts, type TwinService, twinPorts } from './ports.js';
import { type FunctionHost, startFunctionHost } from './reload/function-host.js';
import { CODE_FOLDERS, type CodeWatcher, watchCode } from './reload/watch-code.js';
import { type LocalRuntime, startLocalRuntime } from './runtime.js';
import {
  DEFAULT_MAX_RECEIVE_COUNT,
  ERASURE_DLQ_NAME,
  ERASURE_QUEUE_NAME,
  EXPORT_DLQ_NAME,
  EXPORT_QUEUE_NAME,
  IMPORT_DLQ_NAME,
  IMPORT_QUEUE_NAME,
  MIGRATION_DLQ_NAME,
  MIGRATION_QUEUE_NAME,
  PUBLISHER_FAILURES_QUEUE_NAME,
} from './service-queues.js';

/**
 * `npm start`: the whole API on this machine, through the same handler modules as Lambda,
 * with an embedded DynamoDB (DynamoDB Local) and an embedded SQS queue feeding the consumer.
 */
const QUEUES = [
  [MIGRATION_QUEUE_NAME, `migrations to run, for the migration consumer (dead letters: ${MIGRATION_DLQ_NAME})`],
  [ERASURE_QUEUE_NAME, `erasures to run, for the erasure consumer (dead letters: ${ERASURE_DLQ_NAME})`],
  [EXPORT_QUEUE_NAME, `exports to write, for the export consumer (dead letters: ${EXPORT_DLQ_NAME})`],
  [IMPORT_QUEUE_NAME, `uploads to import, for the import consumer (dead letters: ${IMPORT_DLQ_NAME})`],
  [MIGRATION_DLQ_NAME, `migration messages that failed ${DEFAULT_MAX_RECEIVE_COUNT} receives`],
  [ERASURE_DLQ_NAME, `erasure messages that failed ${DEFAULT_MAX_RECEIVE_COUNT} receives`],
  [EXPORT_DLQ_NAME, `export messages that failed ${DEFAULT_MAX_RECEIVE_COUNT} receives`],
  [IMPORT_DLQ_NAME, `import messages that failed ${DEFAULT_MAX_RECEIVE_COUNT} receives`],
  [PUBLISHER_FAILURES_QUEUE_NAME, "stream batches the change publisher gave up on (Lambda's on-failure shape)"],
];

/** Under --reload (npm run dev), how long a stop waits for requests under way: tsx watch's 5 s, less a margin. */
const RELOAD_DRAIN_MS = 3_000;

const USAGE = `Usage: npm start [-- --in-memory] [--port N] [--host H] [--data-dir DIR] [--reload]

Serves the API on http://127.0.0.1:3000 with an embedded DynamoDB (port 3001) and an SQS twin
(port 3002), and prints a line to paste into another shell (export BASE_URL=... API_KEY=...
AUTH_TOKEN=... DATA_DIR=...), also written to env.sh in the data directory for \`source\`.
\`npm run dev\` takes the same options and reloads the functions when their code changes.

Queues of the SQS twin (\`npm run inspect -- queues\` shows their depth and dead letters):
${QUEUES.map(([name, what]) => `  ${(name as string).padEnd(27)}${what}`).join('\n')}

Options (each also has an environment variable):
  --port N          port of the API (PORT, default 3000; 0 picks free ports for all three)
  --dynamodb-port N port of the embedded DynamoDB (LOCAL_DYNAMODB_PORT, default the API's + 1)
  --sqs-port N      port of the SQS twin (LOCAL_SQS_PORT, default the API's + 2)
  --host H          interface of the API (LOCAL_HOST, default 127.0.0.1; the others: 127.0.0.1 only)
  --data-dir DIR    where data persists between restarts (DATA_DIR, default .data/ in the repository)
  --in-memory       a throw-away store: nothing read or written on disk (LOCAL_IN_MEMORY=1)
  --reload          run the functions in a process of their own, replaced by a fresh one when a
                    file under ${CODE_FOLDERS.join('/, ')}/ changes; the rest keeps running (\`npm run dev\`)
  -h, --help        this text

Environment: LOCAL_API_KEY and LOCAL_AUTH_TOKEN fix the local credential; the functions'
own variables (DEFAULT_INBOX, CREDENTIAL_CACHE_TTL_SECONDS, POWERTOOLS_LOG_LEVEL, ...) apply.`;

const fail = (message: string): never => {
  console.error(`npm start: ${message}`);
  process.exit(2);
};

const parsePort = (value: string): number => {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) fail(`invalid port ${JSON.stringify(value)}`);
  return port;
};

/** Where to move a taken port: the option and variable that set it. */
const PORT_SETTINGS: Record<TwinService, string> = {
  api: '--port (PORT)',
  dynamodb: '--dynamodb-port (LOCAL_DYNAMODB_PORT)',
  sqs: '--sqs-port (LOCAL_SQS_PORT)',
};

const portInUse = ({ service, host, port }: PortInUseError): string =>
  `port ${port} on ${host} is in use, and ${
    { api: 'the API', dynamodb: 'the embedded DynamoDB', sqs: 'the SQS twin' }[service]
  } needs it. Stop what holds it, or set ${PORT_SETTINGS[service]} to another port` +
  (service === 'api' ? ' (the DynamoDB and SQS ports follow it: +1, +2).' : '.');

const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes)$/i.test(value);

const main = async () => {
  const { values } = (() => {
    try {
      return parseArgs({
        options: {
          port: { type: 'string' },
          'dynamodb-port': { type: 'string' },
          'sqs-port': { type: 'string' },
          host: { type: 'string' },
          'data-dir': { type: 'string' },
          'in-memory': { type: 'boolean' },
          reload: { type: 'boolean' },
          help: { type: 'boolean', short: 'h' },
        },
        strict: true,
      });
    } catch (error) {
      return fail(`${(error as Error).message}\n\n${USAGE}`);
    }
  })();
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = parsePort(values.port ?? process.env.PORT ?? '3000');
  const given = (value: string | undefined) => (value === undefined ? undefined : parsePort(value));
  let ports: TwinPorts;
  try {
    ports = twinPorts(port, {
      dynamodb: given(values['dynamodb-port'] ?? process.env.LOCAL_DYNAMODB_PORT),
      sqs: given(values['sqs-port'] ?? process.env.LOCAL_SQS_PORT),
    });
  } catch (error) {
    if (error instanceof SamePortError)
      return fail(`${error.message}: each needs its own (--port, --dynamodb-port, --sqs-port).`);
    return fail(`${(error as Error).message}: set --dynamodb-port and --sqs-port, or a lower --port.`);
  }
  // Not HOST: some shells set that to the machine's name, which would expose the server.
  const host = values.host ?? process.env.LOCAL_HOST ?? '127.0.0.1';
  if (values['in-memory'] && values['data-dir'] !== undefined) {
    return fail('--in-memory keeps nothing on disk, so it takes no --data-dir: give one or the other.');
  }
  const inMemory = values['in-memory'] ?? truthy(process.env.LOCAL_IN_MEMORY);
  const dataDir = resolveDataDir(values['data-dir'] ? { DATA_DIR: values['data-dir'] } : process.env);

  const log = (line: string) => console.log(line);
  const functions: FunctionHost | undefined = values.reload ? startFunctionHost({ log }) : undefined;
  let watcher: CodeWatcher | undefined;
  let runtime: LocalRuntime | undefined;
  let stoppingSince: number | undefined;
  const stop = (signal: string) => {
    if (!runtime) {
      // Still starting (tsx watch restarts on every save): at once; the exit hook stops the JVM.
      console.log(`\n${signal} while starting: stopped.`);
      process.exit(1);
    }
    if (stoppingSince !== undefined) {
      // One Ctrl+C arrives twice under `npm run dev`: from the terminal, and relayed by tsx watch.
      if (performance.now() - stoppingSince < 1_000) return;
      console.log('Stopping now.');
      process.exit(1);
    }
    stoppingSince = performance.now();
    watcher?.close();
    console.log(`\n${signal}: stopping once the requests and queue deliveries under way finish (again: at once)…`);
    runtime.close().then(
      () => {
        console.log('Stopped.');
        process.exit(0);
      },
      (error) => {
        console.error(`Could not stop cleanly: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  try {
    runtime = await startLocalRuntime({
      host,
      port,
      dynamoPort: ports.dynamodb,
      sqsPort: ports.sqs,
      inMemory,
      dataDir,
      apiKey: process.env.LOCAL_API_KEY,
      token: process.env.LOCAL_AUTH_TOKEN,
      printEvents: true,
      // tsx watch kills the twin 5 s after it signals it (a save under local/, or Ctrl+C).
      ...(functions ? { drainMs: RELOAD_DRAIN_MS } : {}),
      log,
      ...(functions ? { functions } : {}),
    });
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e instanceof PortInUseError) fail(portInUse(e));
    if (e.code === 'EADDRINUSE') fail(`port ${port} on ${host} is in use; set PORT (or --port) to another one.`);
    if (e.code === 'EACCES') fail(`not allowed to listen on ${host}:${port}.`);
    return fail(e.message);
  }
  console.log(banner(runtime, { reload: functions !== undefined, host, terminal: process.stdout.isTTY === true }));
  if (functions) watcher = reloadOnChange(functions, log);
};

/** --reload: a burst of saves under the functions' folders gives them a fresh process. */
const reloadOnChange = (functions: FunctionHost, log: (line: string) => void): CodeWatcher =>
  watchCode({
    root: REPO_ROOT,
    log,
    onChange: (files) => {
      const shown =
        files.length > 3 ? `${files.slice(0, 3).join(', ')} and ${files.length - 3} more` : files.join(', ');
      log(`[dev] ${shown} changed: reloading the functions`);
      functions.reload().then(
        ({ pid, ms }) =>
          log(`[dev] functions reloaded in ${ms} ms (process ${pid}); each loads its code when next invoked`),
        (error: Error) => log(`[dev] functions not reloaded: ${error.message}`),
      );
    },
  });

process.on('unhandledRejection', (reason) => {
  console.error('Unhandled rejection in the local server:', reason);
});

main().catch((error) => fail(error instanceof Error ? (error.stack ?? error.message) : String(error)));
