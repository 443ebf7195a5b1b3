import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { REPO_ROOT } from '#service/repository-root.js';
import { runInspectCommand } from '#tools/inspect/command.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// `npm run inspect` against a running twin on a data directory: an organization's items in
// every table (and no other organization's), every queue's depth, a dead-lettered migration
// message shown and left where it is, the organization's events; identifiers that hold
// terminal controls printed escaped; no token or token hash anywhere.
const run = promisify(execFile);

let service: LocalService;
let dataDir: string;

/**
 * A user id the API accepts (no control characters) that a terminal would still show disguised:
 * a right-to-left override and an isolate. Shown escaped, never raw.
 */
const HOSTILE_USER = 'mallory\u202etxt.exe\u2066';

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'inspect-'));
  service = await startLocalService({
    inMemory: false,
    dataDir,
    // Every migration fails at once and, received once, is dead-lettered.
    consumer: async () => {
      throw new Error('consumer down for the test');
    },
    queue: { maxReceiveCount: 1, retryDelayMs: 50 },
  });
  const set = (organizationId: string, userId: string, documentId: string) =>
    service.call('/v2/notifications/config/set', {
      organizationId,
      userIds: [userId],
      documentIds: [documentId],
      config: { email: 'NONE' },
    });
  for (const [organizationId, userId] of [
    ['acme', 'alice'],
    ['acme', HOSTILE_USER],
    ['globex', 'bob'],
  ] as const) {
    expect((await set(organizationId, userId, 'doc-1')).status).toBe(200);
  }
  const migrate = await service.call('/v2/organizations/documents/migrate', {
    organizationId: 'acme',
    documentId: 'doc-1',
    newDocumentId: 'doc-2',
  });
  expect(migrate.status).toBe(200);
  const deadline = Date.now() + 30_000;
  while (service.deadLetterQueue.list().length === 0 && Date.now() < deadline) await sleep(50);
  expect(service.deadLetterQueue.list()).toHaveLength(1);
  await service.streams?.caughtUp();
}, 90_000);

afterAll(async () => {
  await service?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const inspect = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
  let stdout = '';
  let stderr = '';
  const code = await runInspectCommand(args, {
    stdout: (text) => {
      stdout += `${text}\n`;
    },
    stderr: (text) => {
      stderr += `${text}\n`;
    },
    env,
  });
  return { code, stdout, stderr };
};

const depth = async () => {
  const sqs = new SQSClient({
    endpoint: service.sqsEndpoint,
    region: 'local',
    credentials: service.awsCredential,
  });
  try {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: service.deadLetterQueueUrl, AttributeNames: ['All'] }),
    );
    return [Attributes?.ApproximateNumberOfMessages, Attributes?.ApproximateNumberOfMessagesNotVisible];
  } finally {
    sqs.destroy();
  }
};

describe('npm run inspect', () => {
  test('as a command: an organization, its items, the queues and a dead letter, its events', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' };
    delete env.NODE_OPTIONS;
    const { stdout } = await run('npm', ['run', '-s', 'inspect', '--', '--data-dir', dataDir, '--org', 'acme'], {
      cwd: REPO_ROOT,
      env,
    });
    const [migrationMessage] = service.deadLetterQueue.list();
    const { migrationId } = JSON.parse(migrationMessage?.body ?? '{}') as { migrationId: string };

    expect(stdout).toContain(`Local twin ${service.baseUrl}`);
    // Tables: acme's entries, history, job record and lock; the credential granted it.
    expect(stdout).toContain('Tables, organization "acme":');
    expect(stdout).toMatch(/"DOC#acme#doc-1" {2}"alice" {2}\{.*"email":"NONE"/);
    expect(stdout).toMatch(/"H#acme#alice" {2}"\d{4}-/);
    expect(stdout).toContain(`"MIGRATION#${migrationId}"  "RECORD"`);
    expect(stdout).toContain('"LOCK#acme#doc-1"  "LOCK"');
    expect(stdout).toMatch(new RegExp(`"${service.apiKey}" {2}\\{.*"organizationIds":"\\*"`));
    expect(stdout).not.toContain('bob');
    expect(stdout).not.toContain('globex');
    // Queues: every one, with its depth; the dead letter, where it came from.
    for (const name of ['migrations', 'migrations-dlq', 'erasures', 'erasures-dlq', 'change-publisher-failures']) {
      expect(stdout).toMatch(new RegExp(`^ {2}${name} +\\d+ +\\d+ +\\d+`, 'm'));
    }
    expect(stdout).toMatch(/^ {2}migrations-dlq +1 +0 +0 +the dead letters of migrations$/m);
    expect(stdout).toContain('migrations-dlq: 1 of 1 message(s)');
    expect(stdout).toMatch(
      new RegExp(
        `${migrationMessage?.messageId} {2}sent \\S+, dead-lettered from migrations\\n +\\{"migrationId":"${migrationId}"`,
      ),
    );
    // Events: acme's changes only.
    expect(stdout).toMatch(/Notification Config Changed {2}\{.*"organizationId":"acme","userId":"alice"/);
    // Nothing secret, nothing raw.
    expect(stdout).not.toContain(service.token);
    expect(stdout).not.toContain('tokenHash');
    expect(stdout).not.toMatch(/[\u0080-\u009f\u202e\u2066]/);
    expect(stdout).toContain('mallory\\u202etxt.exe\\u2066');
  }, 60_000);

  test('reading the dead letters takes nothing: the message stays, visible, however often it is read', async () => {
    const before = service.deadLetterQueue.list().map((m) => m.messageId);
    for (let i = 0; i < 3; i++) {
      const { code, stdout } = await inspect(['queues', '--data-dir', dataDir]);
      expect(code).toBe(0);
      expect(stdout).toContain('migrations-dlq: 1 of 1 message(s)');
    }
    expect(service.deadLetterQueue.list().map((m) => m.messageId)).toEqual(before);
    expect(await depth()).toEqual(['1', '0']);
  });

  test('without --org: each table with its count and organizations; --limit bounds what is listed', async () => {
    const { stdout } = await inspect(['tables', '--data-dir', dataDir]);
    expect(stdout).toMatch(/^ {2}config: \d+ items .*by organization: "acme" \d+, "globex" 1$/m);
    expect(stdout).not.toContain('DOC#');
    const limited = await inspect(['tables', 'events', '--org', 'acme', '--limit', '1', '--data-dir', dataDir]);
    expect(limited.stdout).toMatch(/^ {4}\.\.\. \d+ more \(--limit 0 shows all\)$/m);
    expect(limited.stdout).toMatch(/the last 1 of \d+, newest last/);
  });

  test('the endpoints can be given, as for an --in-memory twin, which keeps no events', async () => {
    // Its AWS credential as the --in-memory twin's `export` line hands it over.
    const env = {
      LOCAL_AWS_ACCESS_KEY_ID: service.awsCredential.accessKeyId,
      LOCAL_AWS_SECRET_ACCESS_KEY: service.awsCredential.secretAccessKey,
    };
    const args = ['queues', 'events', '--dynamodb', service.dynamoEndpoint, '--sqs', service.sqsEndpoint];
    // Without it, the twin refuses the tool, which says so.
    expect((await inspect(args)).code).toBe(1);
    const { code, stdout } = await inspect(args, env);
    expect(code).toBe(0);
    expect(stdout).toContain(`Local twin at DynamoDB ${service.dynamoEndpoint}, SQS ${service.sqsEndpoint}`);
    expect(stdout).toContain('migrations-dlq: 1 of 1 message(s)');
    expect(stdout).toContain('Events: kept in a data directory only');
  });

  test("files: the bucket's objects in the data directory, newest first, with their size", async () => {
    const s3 = new S3Client({
      endpoint: service.filesEndpoint,
      region: 'local',
      credentials: service.awsCredential,
      forcePathStyle: true,
    });
    await s3.send(
      new PutObjectCommand({ Bucket: service.filesBucket, Key: 'exports/acme/e1', Body: '{"userId":"a"}\n' }),
    );
    s3.destroy();
    const { code, stdout } = await inspect(['files', '--data-dir', dataDir]);
    expect(code).toBe(0);
    expect(stdout).toContain(`Files (bucket ${service.filesBucket}): 1, newest first`);
    expect(stdout).toMatch(/^ {2}exports\/acme\/e1 +15 +\d{4}-/m);
    expect(await readdir(join(dataDir, 'files'))).toContain(service.filesBucket);
  });

  test('no twin, a wrong command line: a message and an exit code, never a stack', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'inspect-none-'));
    try {
      const none = await inspect(['--data-dir', empty]);
      expect(none.code).toBe(1);
      expect(none.stderr).toContain('no local twin is running on');
      // Events alone need no twin: the file is read.
      expect((await inspect(['events', '--data-dir', empty])).stdout).toContain('Events: none yet');
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
    for (const args of [
      ['nonsense'],
      ['--limit=-1'],
      ['--org', ''],
      ['--dynamodb', 'x', '--sqs', 'y'],
      ['--sqs', 'http://127.0.0.1:1'],
    ]) {
      const wrong = await inspect(args);
      expect([args, wrong.code]).toEqual([args, 2]);
      expect(wrong.stderr).toMatch(/^inspect: [^\n]+\nRun with --help for usage\.\n$/);
    }
    const unreachable = await inspect(['tables', '--dynamodb', 'http://127.0.0.1:1', '--sqs', 'http://127.0.0.1:1']);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^inspect: could not reach the twin's DynamoDB/);
  });
});
