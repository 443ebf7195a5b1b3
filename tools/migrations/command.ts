import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AwsCredential } from '#local/aws-credential.js';
import { DataDirLockedError } from '#local/data-dir.js';
import { LOCAL_ACCOUNT_ID } from '#local/lambda-context.js';
import { MIGRATION_QUEUE_NAME } from '#local/service-queues.js';
import { TABLES } from '#service/tables.js';
import { type JobQueue, SqsJobQueue } from '#shared/jobs/queue.js';
import { DynamoJobRepository, type JobRepository } from '#shared/jobs/repository.js';
import { DEFAULT_STALL_LIMIT_MS } from '#shared/jobs/stuck-policy.js';
import { migrationJob } from '#shared/migration/kind.js';
import type { MigrationRecord } from '#shared/migration/model.js';
import {
  failMigration,
  listStuck,
  OPERATOR_FAIL_REASON,
  OperatorRefusal,
  resumeMigration,
  type StuckRow,
} from '#tools/migrations/operator.js';
import { openLocalStore, regionalDynamoClient } from '../cli/local-store.js';
import { type CliIo, describeError, exitOnError, parseCommandLine, table, UsageError } from '../cli/output.js';

/**
 * `npm run migrations -- list-stuck|resume|fail|scrub-ended`: the operators' tool for migrations that stopped
 * making progress (tools/migrations/operator.ts), and the clean-up of what old ended records kept, in the local store (the running local server's,
 * or the data directory's) or, with --table and --queue-url, a deployed stack's.
 */
export const USAGE = `Usage: npm run migrations -- <command> [options]

Commands:
  list-stuck    active migrations that made no progress for the stall limit, and what the sweeper
                (every 5 minutes) will do about each
  resume ID     queue a message for a stalled migration now; the consumer picks up where it stopped
                (refused while a delivery holds it, or if it was never queued)
  fail ID       mark an active migration failed and free its documents (refused while a delivery
                holds it, unless --force)
  scrub-ended   remove the skipped checkpoint (user ids) that migrations which ended before the
                service dropped it on ending still hold; once, after upgrading (a Scan of the table)

list-stuck options:
  --stall-minutes N       quiet for longer than N minutes (default ${DEFAULT_STALL_LIMIT_MS / 60_000}, the sweeper's limit)
fail options:
  --reason TEXT           what callers of the status route read (default: "${OPERATOR_FAIL_REASON}")
  --force                 fail it even while a delivery holds it: the delivery stops at its next page

Where (default: the local store, see below):
  --table NAME --queue-url URL [--region REGION]
                          a deployed stack (outputs MigrationsTableName and MigrationQueueUrl); AWS
                          credentials and, without --region or AWS_REGION, the region come from the
                          default provider chain (AWS_PROFILE, ~/.aws/config)
  --data-dir DIR          the local data directory (DATA_DIR, default .data/ in the repository); while
                          \`npm start\` runs on it, the command talks to that server's DynamoDB and queue
                          (resume needs it running: the queue lives in the server)

Other:
  --json        machine-readable output
  -h, --help    this text

Exit codes: 0 done, 1 refused or failed (the message says why), 2 invalid command line.`;

const OPTIONS = {
  'stall-minutes': { type: 'string' },
  reason: { type: 'string' },
  force: { type: 'boolean' },
  table: { type: 'string' },
  'queue-url': { type: 'string' },
  region: { type: 'string' },
  'data-dir': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseCommandLine<typeof OPTIONS>>['values'];

const COMMANDS: Record<string, { id: boolean; options: (keyof typeof OPTIONS)[] }> = {
  'list-stuck': { id: false, options: ['stall-minutes'] },
  resume: { id: true, options: [] },
  fail: { id: true, options: ['reason', 'force'] },
  'scrub-ended': { id: false, options: [] },
};
const TARGET_OPTIONS: (keyof typeof OPTIONS)[] = ['table', 'queue-url', 'region', 'data-dir', 'json', 'help'];

interface Target {
  repository: JobRepository<MigrationRecord>;
  /** Undefined when no queue can be reached (the local store without its server). */
  queue: JobQueue | undefined;
  description: string;
  close(): Promise<void>;
}

const openTarget = async (values: Values, env: NodeJS.ProcessEnv): Promise<Target> => {
  if (values.table !== undefined || values['queue-url'] !== undefined || values.region !== undefined) {
    if (values['data-dir']) throw new UsageError('--data-dir cannot be combined with --table/--queue-url');
    const table = values.table;
    const queueUrl = values['queue-url'];
    if (!table || !queueUrl) {
      throw new UsageError(
        'a deployed stack needs --table NAME and --queue-url URL (stack outputs MigrationsTableName, MigrationQueueUrl)',
      );
    }
    const regional = await regionalDynamoClient(values.region, env);
    if (!regional) {
      throw new UsageError('--table needs a region: --region REGION, AWS_REGION, or a region in your AWS profile');
    }
    const { client: dynamo, region } = regional;
    const sqs = new SQSClient({ region });
    return {
      repository: new DynamoJobRepository(migrationJob, DynamoDBDocumentClient.from(dynamo), table),
      queue: new SqsJobQueue(migrationJob, sqs, queueUrl),
      description: `table ${table} in ${region}`,
      close: async () => {
        dynamo.destroy();
        sqs.destroy();
      },
    };
  }
  const local = (
    dynamoEndpoint: string,
    sqsEndpoint: string | undefined,
    credentials: AwsCredential,
    description: string,
    stop = async () => {},
  ) => {
    const dynamo = new DynamoDBClient({
      endpoint: dynamoEndpoint,
      region: 'local',
      credentials,
      maxAttempts: 2,
    });
    const sqs = sqsEndpoint
      ? new SQSClient({ endpoint: sqsEndpoint, region: 'local', credentials, maxAttempts: 2 })
      : undefined;
    return {
      repository: new DynamoJobRepository(
        migrationJob,
        DynamoDBDocumentClient.from(dynamo),
        TABLES.migrations.localName,
      ),
      queue: sqs && new SqsJobQueue(migrationJob, sqs, `${sqsEndpoint}/${LOCAL_ACCOUNT_ID}/${MIGRATION_QUEUE_NAME}`),
      description,
      close: async () => {
        dynamo.destroy();
        sqs?.destroy();
        await stop();
      },
    };
  };
  const store = await openLocalStore(values['data-dir'], env, { create: false });
  return local(store.dynamoEndpoint, store.sqsEndpoint, store.credentials, store.description, () => store.stop());
};

const minutesSince = (time: string, now: Date) => `${Math.floor((now.getTime() - Date.parse(time)) / 60_000)} min`;

const VERDICT_TEXT: Record<string, string> = {
  resume: 're-queue it',
  fail: 'fail it',
  finished: 'nothing (finished)',
  leased: 'nothing (a delivery holds it)',
  recent: 'nothing (recent progress)',
  resumed: 'wait (re-queued recently)',
};
const verdictText = ({ verdict }: StuckRow) =>
  VERDICT_TEXT[verdict.action === 'leave' ? verdict.why : verdict.action] ?? verdict.action;

const shown = (record: MigrationRecord) => ({
  migrationId: record.migrationId,
  organizationId: record.organizationId,
  documentId: record.documentId,
  newDocumentId: record.newDocumentId,
  status: record.status,
  moved: record.moved,
  skipped: record.skipped,
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
  leaseUntil: record.leaseUntil === undefined ? null : new Date(record.leaseUntil).toISOString(),
  sweptAt: record.sweptAt ?? null,
  sweepResumes: record.sweepResumes ?? 0,
  error: record.error ?? null,
});

export const runMigrationsCommand = async (argv: string[], io: CliIo): Promise<number> => {
  const env = io.env ?? process.env;
  const now = io.now ?? (() => new Date());
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseCommandLine(argv, OPTIONS);
  } catch (error) {
    return exitOnError('migrations', io, error, String);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === 'help') {
    io.stdout(USAGE);
    return 0;
  }
  const spec = command === undefined ? undefined : COMMANDS[command];
  if (!command || !spec) {
    io.stderr(
      `migrations: ${command ? `unknown command ${JSON.stringify(command)}` : 'a command is required'}; use list-stuck, resume, fail or scrub-ended.`,
    );
    return 2;
  }
  const [id, ...extra] = rest;
  if (spec.id && !id) {
    io.stderr(`migrations: ${command} needs a migration id.`);
    return 2;
  }
  const unexpected = spec.id ? extra[0] : id;
  if (unexpected !== undefined) {
    io.stderr(`migrations: unexpected argument ${JSON.stringify(unexpected)}.`);
    return 2;
  }
  const misplaced = (Object.keys(values) as (keyof typeof OPTIONS)[]).find(
    (key) => !spec.options.includes(key) && !TARGET_OPTIONS.includes(key),
  );
  if (misplaced) {
    io.stderr(`migrations: --${misplaced} does not apply to ${command}.`);
    return 2;
  }

  let target: Target | undefined;
  try {
    const stallMinutes = Number(values['stall-minutes'] ?? DEFAULT_STALL_LIMIT_MS / 60_000);
    if (!Number.isFinite(stallMinutes) || stallMinutes < 0) {
      throw new UsageError(
        `--stall-minutes must be a number of minutes, not ${JSON.stringify(values['stall-minutes'])}`,
      );
    }
    if (values.reason !== undefined && (values.reason.trim().length === 0 || values.reason.length > 500)) {
      throw new UsageError('--reason must be 1 to 500 characters');
    }

    target = await openTarget(values, env);
    const { repository } = target;
    if (command === 'list-stuck') {
      const rows = await listStuck({ repository, now }, stallMinutes * 60_000);
      const at = now();
      if (values.json) {
        io.stdout(
          JSON.stringify(
            rows.map((row) => ({ ...shown(row.record), sweeper: row.verdict })),
            null,
            2,
          ),
        );
      } else if (rows.length === 0) {
        io.stdout(`No active migration without progress for ${stallMinutes} minutes in ${target.description}.`);
      } else {
        io.stdout(
          `${rows.length} active migration(s) without progress for ${stallMinutes} minutes in ${target.description}:\n\n` +
            table([
              ['MIGRATION', 'STATUS', 'ORGANIZATION', 'DOCUMENT -> NEW', 'MOVED', 'QUIET', 'RE-QUEUED', 'SWEEPER WILL'],
              ...rows.map((row) => [
                row.record.migrationId,
                row.record.status,
                row.record.organizationId,
                `${row.record.documentId} -> ${row.record.newDocumentId}`,
                String(row.record.moved),
                minutesSince(row.record.updatedAt, at),
                String(row.record.sweepResumes ?? 0),
                verdictText(row),
              ]),
            ]),
        );
      }
      return 0;
    }
    if (command === 'scrub-ended') {
      const scrubbed = await repository.dropEndedPageFields();
      io.stdout(
        values.json
          ? JSON.stringify({ scrubbed }, null, 2)
          : `Removed the skipped checkpoint of ${scrubbed.length} ended migration(s) in ${target.description}.`,
      );
      return 0;
    }
    const migrationId = id as string;
    if (command === 'resume') {
      if (!target.queue) {
        throw new OperatorRefusal(
          `the local server is not running on this data directory: start it (npm start), which owns the queue, then resume`,
        );
      }
      const record = await resumeMigration({ repository, queue: target.queue, now }, migrationId);
      io.stdout(
        values.json
          ? JSON.stringify(shown(record), null, 2)
          : `Re-queued migration ${migrationId} (${record.status}, ${record.moved} moved, last progress ${record.updatedAt}) in ${target.description}.\n` +
              'The consumer resumes it where it stopped; follow it with the status route.',
      );
      return 0;
    }
    const record = await failMigration({ repository, now }, migrationId, {
      ...(values.reason ? { reason: values.reason } : {}),
      force: values.force ?? false,
    });
    io.stdout(
      values.json
        ? JSON.stringify(shown(record), null, 2)
        : `Marked migration ${migrationId} failed in ${target.description}: ${record.error}\n` +
            `Documents ${JSON.stringify(record.documentId)} and ${JSON.stringify(record.newDocumentId)} are free again; ` +
            `${record.moved} entries were moved, the rest are still under the old document.`,
    );
    return 0;
  } catch (error) {
    return exitOnError('migrations', io, error, (e) =>
      e instanceof DataDirLockedError
        ? e.message
        : describeError(e, target?.description ?? 'the migrations table', 'the migrations table or its index'),
    );
  } finally {
    await target?.close();
  }
};
