import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dataPaths, readRunningServer, resolveDataDir } from '#local/data-dir.js';
import { LOCAL_FILES_BUCKET } from '#local/files/local-s3.js';
import { LOCAL_REGION } from '#local/lambda-context.js';
import { twinCredential } from '../cli/local-store.js';
import { type CliIo, describeError, parseCommandLine, printable, UsageError } from '../cli/output.js';
import { inspectDeliveries } from './deliveries.js';
import { inspectEvents } from './events.js';
import { inspectFiles } from './files.js';
import { inspectQueues, MAX_SHOWN_MESSAGES } from './queues.js';
import { inspectTables } from './tables.js';

/**
 * `npm run inspect`: what the running local twin holds, read through its own endpoints with the
 * AWS SDK (and its events file): tables, queues with their dead letters, recent events. It reads
 * only; a dead letter stays where it is.
 */
export const USAGE = `Usage: npm run inspect [-- [tables] [queues] [events] [deliveries] [files] [options]]

Shows what the local twin (\`npm start\`) holds; every part without a subcommand.
  tables    each table's item count and organizations; with --org, that organization's items
            (preferences and policy, history, jobs and their locks, the credentials granted it)
  queues    every queue's depth (waiting, in flight, delayed), and the messages of the
            dead-letter queues and of change-publisher-failures, read without taking them
  events    the latest events the service published (events.jsonl in the data directory)
  deliveries  the latest webhook delivery attempts: endpoint, event, answer, next attempt
  files     the files bucket's objects (import uploads, rejected rows, exports), newest first

Options:
  --org ID          one organization's items and events
  --limit N         items shown per table, events and deliveries (default 20; 0 shows all); at most
                    ${MAX_SHOWN_MESSAGES} messages per queue (an SQS receive's maximum)
  --data-dir DIR    the data directory of the twin to inspect (DATA_DIR, default .data/ in the
                    repository): its endpoint.json names the running twin's endpoints
  --dynamodb URL    the twin's DynamoDB endpoint, and
  --sqs URL         its SQS endpoint, instead of endpoint.json (an --in-memory twin writes none;
                    its banner prints both)
  --s3 URL          its S3 endpoint, for files (likewise)
  -h, --help        this text

Exit codes: 0 done, 1 the twin could not be reached or read, 2 invalid command line.`;

const OPTIONS = {
  org: { type: 'string' },
  limit: { type: 'string' },
  'data-dir': { type: 'string' },
  dynamodb: { type: 'string' },
  sqs: { type: 'string' },
  s3: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const PARTS = ['tables', 'queues', 'events', 'deliveries', 'files'] as const;
type Part = (typeof PARTS)[number];

const DEFAULT_LIMIT = 20;

const endpoint = (value: string, option: string): string => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--${option} must be a URL such as http://127.0.0.1:3001, not ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--${option} must be an http:// URL, not ${JSON.stringify(value)}`);
  }
  return url.origin;
};

const parse = (argv: string[]) => {
  const { values, positionals } = parseCommandLine(argv, OPTIONS);
  const unknown = positionals.find((part) => !(PARTS as readonly string[]).includes(part));
  if (unknown !== undefined) {
    throw new UsageError(`unknown part ${JSON.stringify(unknown)}; use ${PARTS.join(', ')}`);
  }
  const limit = Number(values.limit ?? DEFAULT_LIMIT);
  if (!Number.isInteger(limit) || limit < 0) throw new UsageError(`--limit must be a whole number, 0 or more`);
  if (values.org !== undefined && values.org === '') throw new UsageError('--org needs an organization id');
  if ((values.dynamodb === undefined) !== (values.sqs === undefined)) {
    throw new UsageError('--dynamodb and --sqs go together');
  }
  return {
    help: values.help ?? false,
    parts: new Set<Part>(positionals.length ? (positionals as Part[]) : PARTS),
    organizationId: values.org,
    limit,
    dataDirOption: values['data-dir'],
    s3Endpoint: values.s3 === undefined ? undefined : endpoint(values.s3, 's3'),
    given:
      values.dynamodb !== undefined && values.sqs !== undefined
        ? { dynamoEndpoint: endpoint(values.dynamodb, 'dynamodb'), sqsEndpoint: endpoint(values.sqs, 'sqs') }
        : undefined,
  };
};

export const runInspectCommand = async (argv: string[], io: CliIo): Promise<number> => {
  const env = io.env ?? process.env;
  let options: ReturnType<typeof parse>;
  try {
    options = parse(argv);
  } catch (error) {
    io.stderr(`inspect: ${(error as Error).message}\nRun with --help for usage.`);
    return 2;
  }
  if (options.help) {
    io.stdout(USAGE);
    return 0;
  }
  const { parts, organizationId, limit } = options;
  const dataDir = resolveDataDir(options.dataDirOption ? { DATA_DIR: options.dataDirOption } : env);
  const needsTwin =
    parts.has('tables') ||
    parts.has('queues') ||
    parts.has('deliveries') ||
    (parts.has('files') && !options.s3Endpoint);
  const running = options.given ? undefined : await readRunningServer(dataDir);
  const twin = options.given ?? running;
  if (needsTwin && !twin) {
    io.stderr(
      printable(
        `inspect: no local twin is running on ${dataDir} (no endpoint.json of a live process there). ` +
          'Start one with `npm start`, name its data directory with --data-dir, or give an --in-memory ' +
          "twin's endpoints with --dynamodb URL --sqs URL (its banner prints them).",
      ),
    );
    return 1;
  }
  const sections: string[][] = [];
  if (twin) {
    sections.push([
      printable(
        running
          ? `Local twin ${running.apiUrl} (pid ${running.pid}), data in ${dataDir}`
          : `Local twin at DynamoDB ${twin.dynamoEndpoint}, SQS ${twin.sqsEndpoint}`,
      ),
    ]);
  }
  // A running twin's credential is its data directory's; given endpoints, LOCAL_AWS_* may name it.
  const credentials = await twinCredential(dataDir, running ? {} : env);
  const clientOptions = { region: LOCAL_REGION, credentials, maxAttempts: 2 };
  const dynamo = twin && new DynamoDBClient({ endpoint: twin.dynamoEndpoint, ...clientOptions });
  const sqs = twin && new SQSClient({ endpoint: twin.sqsEndpoint, ...clientOptions });
  const s3Endpoint = options.s3Endpoint ?? running?.filesEndpoint;
  const s3 = s3Endpoint ? new S3Client({ endpoint: s3Endpoint, forcePathStyle: true, ...clientOptions }) : undefined;
  let target = '';
  try {
    if (parts.has('tables') && dynamo) {
      target = `the twin's DynamoDB (${twin.dynamoEndpoint})`;
      sections.push(await inspectTables({ dynamo, doc: DynamoDBDocumentClient.from(dynamo) }, organizationId, limit));
    }
    if (parts.has('queues') && sqs) {
      target = `the twin's SQS (${twin.sqsEndpoint})`;
      sections.push(await inspectQueues(sqs, limit));
    }
    if (parts.has('deliveries') && dynamo) {
      target = `the twin's DynamoDB (${twin.dynamoEndpoint})`;
      sections.push(await inspectDeliveries(DynamoDBDocumentClient.from(dynamo), organizationId, limit));
    }
    if (parts.has('events')) {
      target = `the events file of ${dataDir}`;
      sections.push(
        options.given && !options.dataDirOption && !env.DATA_DIR
          ? ['Events: kept in a data directory only (an --in-memory twin prints them instead)']
          : await inspectEvents(dataPaths(dataDir).events, organizationId, limit),
      );
    }
    if (parts.has('files')) {
      target = `the twin's S3 (${s3Endpoint})`;
      sections.push(
        s3
          ? await inspectFiles(s3, LOCAL_FILES_BUCKET, limit)
          : ['Files: this twin names no S3 endpoint (give --s3 URL from its banner)'],
      );
    }
  } catch (error) {
    io.stderr(printable(`inspect: ${describeError(error, target, 'a table or queue')}`));
    return 1;
  } finally {
    dynamo?.destroy();
    sqs?.destroy();
    s3?.destroy();
  }
  io.stdout(sections.map((lines) => lines.join('\n')).join('\n\n'));
  return 0;
};
