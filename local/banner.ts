import { isLoopbackHost } from './loopback.js';
import type { LocalRuntime } from './runtime.js';
import { shellQuote } from './shell-env.js';

/**
 * What `npm start` prints once it serves: the endpoints, every queue, the credential, the line to
 * paste. The token and the line that holds it go to a terminal only: output sent to a file or
 * another program (a CI log, `npm start > log`) is read by others, so it names env.sh instead.
 */

const REQUEST =
  '{"data":{"organizationId":"acme","userIds":["alice"],"documentIds":["doc-1"],"config":{"email":"NONE"}}}';

/** One line per queue, its URL aligned, and where its dead letters go; each dead-letter queue after its source. */
const queueLines = (all: LocalRuntime['queues']): string[] => {
  const deadLetterQueues = new Set(all.flatMap((queue) => (queue.deadLetter ? [queue.deadLetter.queue] : [])));
  const queues = all
    .filter((queue) => !deadLetterQueues.has(queue))
    .flatMap((queue) => (queue.deadLetter ? [queue, queue.deadLetter.queue] : [queue]));
  const width = Math.max(...queues.map((queue) => queue.name.length));
  return queues.map(
    (queue) =>
      `    ${queue.name.padEnd(width)}  ${queue.url}` +
      (queue.deadLetter ? ` (dead letters: ${queue.deadLetter.queue.name})` : ''),
  );
};

/** What a save reloads under --reload (`npm run dev`), and what it does not. */
const RELOAD_LINES = [
  '  reload       on save under functions/, shared/, service/: the functions get a fresh process; the',
  '               stores, queues, streams and server keep running (a save under local/ restarts it all)',
];

/** Said at the top when --host opens the API (its credential granted every organization) beyond this machine. */
const exposureLines = (host: string): string[] => [
  '',
  `  WARNING      the API listens on ${host}: whoever reaches this machine on that interface can`,
  '               call it with the credential below (granted every organization). The URL above is',
  '               where this machine reaches it. The DynamoDB and SQS endpoints stay on 127.0.0.1.',
];

/** Where a banner that is not shown on a terminal sends the reader for the token. */
const tokenElsewhere = (runtime: LocalRuntime): string =>
  runtime.shellEnvFile
    ? `in ${shellQuote(runtime.shellEnvFile)} (not printed: the output is not a terminal)`
    : 'not printed (the output is not a terminal, and in memory there is no env.sh): set LOCAL_AUTH_TOKEN to choose it';

export const banner = (
  runtime: LocalRuntime,
  { reload = false, host = '127.0.0.1', terminal = true }: { reload?: boolean; host?: string; terminal?: boolean } = {},
): string => {
  const store = runtime.dataDir ? `${runtime.dataDir} (kept between restarts)` : 'in memory (discarded on exit)';
  const replaced = runtime.replacedCredential;
  const credentialNote = {
    created: 'created',
    kept: 'from the data directory',
    // A revocation is an operator's: the old credential stays revoked, this one is new.
    replaced: `new: the saved one (${replaced?.apiKey}) was ${replaced?.reason}, and stays so`,
  }[runtime.credential];
  return [
    '',
    `Notification preferences API (local) on ${runtime.baseUrl}`,
    ...(isLoopbackHost(host) ? [] : exposureLines(host)),
    '',
    `  data         ${store}`,
    `  DynamoDB     ${runtime.dynamoEndpoint} (tables ${Object.values(runtime.tables).join(', ')})`,
    `  SQS          ${runtime.sqsEndpoint}`,
    ...queueLines(runtime.queues),
    ...(runtime.restoredMessages ? [`               ${runtime.restoredMessages} queued message(s) restored`] : []),
    `  events       ${runtime.eventsFile ?? 'printed only (in memory)'} (one JSON line each; the history from the tables' streams)`,
    `    EventBridge ${runtime.eventsEndpoint} (PutEvents, for the change publisher)`,
    `  S3           ${runtime.filesEndpoint} (bucket ${runtime.filesBucket}: import and export files, presigned URLs)`,
    `  credential   ${credentialNote}, granted every organization`,
    `    x-service-api-key:    ${runtime.apiKey}`,
    `    x-service-auth-token: ${terminal ? runtime.token : tokenElsewhere(runtime)}`,
    `  API docs     ${runtime.baseUrl}/docs (OpenAPI: ${runtime.baseUrl}/openapi.json)`,
    '  sample data  npm run seed (in another terminal): an organization to read and migrate',
    '  inspect      npm run inspect: tables (--org ID for its items), queues and dead letters, events, files',
    '               (docs/development.md#inspecting-the-tables-and-the-queue)',
    ...(reload ? RELOAD_LINES : []),
    '',
    ...(terminal
      ? [
          runtime.shellEnvFile
            ? `In another terminal, paste this line (or: source ${shellQuote(runtime.shellEnvFile)}):`
            : 'In another terminal, paste this line (in memory: no DATA_DIR, and no file to source):',
          `  ${runtime.exportLine}`,
        ]
      : runtime.shellEnvFile
        ? ['In another terminal, load the address and credential:', `  source ${shellQuote(runtime.shellEnvFile)}`]
        : [
            'In another terminal, set BASE_URL, API_KEY and AUTH_TOKEN (the token as LOCAL_AUTH_TOKEN set it):',
            `  export BASE_URL=${shellQuote(runtime.baseUrl)} API_KEY=${shellQuote(runtime.apiKey)} AUTH_TOKEN=…`,
          ]),
    'then try:',
    '  curl -s "$BASE_URL/v2/notifications/config/set" \\',
    `    -H 'content-type: application/json' -H "x-service-api-key: $API_KEY" -H "x-service-auth-token: $AUTH_TOKEN" \\`,
    `    -d '${REQUEST}'`,
    '',
    'Ctrl+C stops it.',
    '',
  ].join('\n');
};
