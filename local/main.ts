import { parseArgs } from 'node:util';
import { resolveDataDir } from './data-dir.js';
import { type LocalRuntime, startLocalRuntime } from './runtime.js';

/**
 * `npm start`: the whole API on this machine, through the same handler modules as Lambda,
 * with an embedded DynamoDB (DynamoDB Local) and an embedded SQS queue feeding the consumer.
 */
const USAGE = `Usage: npm start [-- --in-memory] [--port N] [--host H] [--data-dir DIR]

Serves the API on http://127.0.0.1:3000 with an embedded DynamoDB and migration queue.

Options (each also has an environment variable):
  --port N          port of the API (PORT, default 3000; 0 picks a free port)
  --host H          interface to listen on (LOCAL_HOST, default 127.0.0.1)
  --data-dir DIR    where data persists between restarts (DATA_DIR, default .data/ in the repository)
  --in-memory       a throw-away store: nothing read or written on disk (LOCAL_IN_MEMORY=1)
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

const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes)$/i.test(value);

const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

const banner = (runtime: LocalRuntime): string => {
  const auth = `-H 'content-type: application/json' -H ${shellQuote(`x-service-api-key: ${runtime.apiKey}`)} -H ${shellQuote(`x-service-auth-token: ${runtime.token}`)}`;
  const store = runtime.dataDir ? `${runtime.dataDir} (kept between restarts)` : 'in memory (discarded on exit)';
  const credentialNote = {
    created: 'created',
    kept: 'from the data directory',
    restored: 'restored (it was revoked, expired or changed)',
  }[runtime.credential];
  return [
    '',
    `Notification preferences API (local) on ${runtime.baseUrl}`,
    '',
    `  data         ${store}`,
    `  DynamoDB     ${runtime.dynamoEndpoint}`,
    `  queue        ${runtime.queueUrl} (dead letters: ${runtime.deadLetterQueueUrl})`,
    ...(runtime.restoredMessages ? [`               ${runtime.restoredMessages} queued message(s) restored`] : []),
    `  credential   ${credentialNote}, granted every organization`,
    `    x-service-api-key:    ${runtime.apiKey}`,
    `    x-service-auth-token: ${runtime.token}`,
    `  API docs     ${runtime.baseUrl}/docs (OpenAPI: ${runtime.baseUrl}/openapi.json)`,
    '  sample data  npm run seed (in another terminal): an organization to read and migrate',
    '',
    'Try:',
    `  curl -s ${runtime.baseUrl}/v2/notifications/config/set \\`,
    `    ${auth} \\`,
    `    -d '{"data":{"organizationId":"acme","userIds":["alice"],"documentIds":["doc-1"],"config":{"email":"NONE"}}}'`,
    '',
    'Ctrl+C stops it.',
    '',
  ].join('\n');
};

const main = async () => {
  const { values } = (() => {
    try {
      return parseArgs({
        options: {
          port: { type: 'string' },
          host: { type: 'string' },
          'data-dir': { type: 'string' },
          'in-memory': { type: 'boolean' },
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
  // Not HOST: some shells set that to the machine's name, which would expose the server.
  const host = values.host ?? process.env.LOCAL_HOST ?? '127.0.0.1';
  const inMemory = values['in-memory'] ?? truthy(process.env.LOCAL_IN_MEMORY);
  const dataDir = resolveDataDir(values['data-dir'] ? { DATA_DIR: values['data-dir'] } : process.env);

  let runtime: LocalRuntime;
  try {
    runtime = await startLocalRuntime({
      host,
      port,
      inMemory,
      dataDir,
      apiKey: process.env.LOCAL_API_KEY,
      token: process.env.LOCAL_AUTH_TOKEN,
      log: (line) => console.log(line),
    });
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') fail(`port ${port} on ${host} is in use; set PORT (or --port) to another one.`);
    if (e.code === 'EACCES') fail(`not allowed to listen on ${host}:${port}.`);
    return fail(e.message);
  }
  console.log(banner(runtime));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      console.log('Stopping now.');
      process.exit(1);
    }
    stopping = true;
    console.log(`\n${signal}: stopping (the queue finishes the deliveries under way)…`);
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
};

process.on('unhandledRejection', (reason) => {
  console.error('Unhandled rejection in the local server:', reason);
});

main().catch((error) => fail(error instanceof Error ? (error.stack ?? error.message) : String(error)));
