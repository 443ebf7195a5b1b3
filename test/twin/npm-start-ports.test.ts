import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { readAwsCredential } from '#local/aws-credential.js';
import { dataPaths } from '#local/data-dir.js';
import { SHARED_DYNAMODB_LOCAL_ENV } from '#local/dynamo.js';
import { assertPortFree } from '#local/ports.js';
import { REPO_ROOT } from '#service/repository-root.js';

// `npm start`'s DynamoDB and SQS endpoints stay where they were (the API's port + 1 and + 2)
// from one start to the next, and a taken one stops the start with the port and the option
// that moves it.
let dataDir: string;
const children: ChildProcess[] = [];
const holders: Server[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'npm-start-ports-'));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const holder of holders) holder.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** An API port whose next two ports are free as well. */
const freeBase = async (): Promise<number> => {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    try {
      for (const port of [base, base + 1, base + 2]) await assertPortFree('api', undefined, port);
      return base;
    } catch {
      // taken: another try
    }
  }
  throw new Error('no three consecutive free ports found');
};

const hold = async (port: number) => {
  const server = createServer();
  holders.push(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
};

/** local/main.ts as `npm start` runs it (in one process: node --import tsx). */
const npmStart = (args: string[], dir = dataDir) => {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    LOCAL_API_KEY: '',
    LOCAL_AUTH_TOKEN: '',
  };
  // Its own DynamoDB Local, not the one this test run shares.
  delete env[SHARED_DYNAMODB_LOCAL_ENV];
  for (const name of ['PORT', 'LOCAL_DYNAMODB_PORT', 'LOCAL_SQS_PORT']) delete env[name];
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts', '--data-dir', dir, ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = async () => {
    while (!output.includes('Ctrl+C stops it.')) {
      if (child.exitCode !== null) throw new Error(`npm start exited:\n${output}`);
      await sleep(50);
    }
    return output;
  };
  return { child, exit, started, output: () => output };
};

const INSPECT_ANCHOR = 'inspecting-the-tables-and-the-queue';

test('the banner points to a section of the development guide that exists', async () => {
  const guide = await readFile(join(REPO_ROOT, 'docs', 'development.md'), 'utf8');
  const headings = [...guide.matchAll(/^#+ (.*)$/gm)].map((m) => (m[1] as string).toLowerCase().replaceAll(' ', '-'));
  expect(headings).toContain(INSPECT_ANCHOR);
});

test('the DynamoDB and SQS endpoints follow the API port, answer there, and stay there after a restart', async () => {
  const base = await freeBase();
  for (let run = 0; run < 2; run++) {
    const server = npmStart(['--port', String(base)]);
    const banner = await server.started();
    expect(banner).toContain(`on http://127.0.0.1:${base}`);
    expect(banner).toMatch(new RegExp(`DynamoDB +http://127\\.0\\.0\\.1:${base + 1} `));
    expect(banner).toMatch(new RegExp(`SQS +http://127\\.0\\.0\\.1:${base + 2}\\n`));
    // And where to read how to look inside them.
    expect(banner).toContain(`docs/development.md#${INSPECT_ANCHOR}`);

    // Signed with the data directory's AWS credential, as the tools sign.
    const local = { region: 'local', credentials: await readAwsCredential(dataPaths(dataDir).awsCredential) };
    const dynamo = new DynamoDBClient({ endpoint: `http://127.0.0.1:${base + 1}`, ...local });
    const sqs = new SQSClient({ endpoint: `http://127.0.0.1:${base + 2}`, ...local });
    try {
      expect((await dynamo.send(new ListTablesCommand({}))).TableNames).toEqual(
        expect.arrayContaining(['config', 'migrations', 'credentials']),
      );
      expect((await sqs.send(new GetQueueUrlCommand({ QueueName: 'migrations' }))).QueueUrl).toBe(
        `http://127.0.0.1:${base + 2}/000000000000/migrations`,
      );
    } finally {
      dynamo.destroy();
      sqs.destroy();
    }
    server.child.kill('SIGTERM');
    expect(await server.exit).toBe(0);
  }
}, 60_000);

test.each([
  ['DynamoDB', 1, '--dynamodb-port (LOCAL_DYNAMODB_PORT)'],
  ['SQS', 2, '--sqs-port (LOCAL_SQS_PORT)'],
  ['API', 0, '--port (PORT)'],
] as const)(
  'a taken %s port stops the start, naming the port and the option that moves it, and writes nothing',
  async (_name, offset, option) => {
    const base = await freeBase();
    await hold(base + offset);
    const dir = join(dataDir, `taken-${offset}`);
    const server = npmStart(['--port', String(base)], dir);
    expect(await server.exit).toBe(2);
    expect(server.output()).toContain(`port ${base + offset} on 127.0.0.1 is in use`);
    expect(server.output()).toContain(option);
    expect(server.output()).not.toContain('Ctrl+C stops it.');
    // No store for the tools to find, no credential, no banner file: at most empty folders.
    expect(await filesUnder(dir)).toEqual([]);
  },
  30_000,
);

test('one port given to two services stops the start, naming both, and writes nothing', async () => {
  const base = await freeBase();
  const dir = join(dataDir, 'same-port');
  const server = npmStart(['--port', String(base), '--dynamodb-port', String(base)], dir);
  expect(await server.exit).toBe(2);
  expect(server.output()).toContain(
    `the API and the embedded DynamoDB are both given port ${base}: each needs its own (--port, --dynamodb-port, --sqs-port).`,
  );
  expect(await filesUnder(dir)).toEqual([]);
}, 30_000);

test('--in-memory with --data-dir is refused (the directory would be ignored), and nothing is written', async () => {
  const dir = join(dataDir, 'in-memory');
  const server = npmStart(['--in-memory', '--port', '0'], dir);
  expect(await server.exit).toBe(2);
  expect(server.output()).toContain('--in-memory keeps nothing on disk, so it takes no --data-dir');
  expect(await filesUnder(dir)).toEqual([]);
}, 30_000);

/** The files below `dir`, folders left out; none when it does not exist. */
const filesUnder = async (dir: string): Promise<string[]> =>
  (await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []))
    .filter((entry) => !entry.isDirectory())
    .map((entry) => join(entry.parentPath, entry.name));

test('--dynamodb-port and --sqs-port place the endpoints anywhere', async () => {
  const [api, dynamodb, sqs] = [await freeBase(), await freeBase(), await freeBase()];
  const server = npmStart(['--port', String(api), '--dynamodb-port', String(dynamodb), '--sqs-port', String(sqs)]);
  const banner = await server.started();
  expect(banner).toMatch(new RegExp(`DynamoDB +http://127\\.0\\.0\\.1:${dynamodb} `));
  expect(banner).toMatch(new RegExp(`SQS +http://127\\.0\\.0\\.1:${sqs}\\n`));
  server.child.kill('SIGTERM');
  expect(await server.exit).toBe(0);
}, 30_000);
