import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ensureTables, startEmbeddedDynamo } from '#local/dynamo.js';
import { LEGACY_SHARED_DB_FILE } from '#local/dynamo-files.js';
import { DbPathInUseError, dbFileOf, dbPathHolder, findJava, startDynamoDbLocal } from '#local/dynamodb-local.js';
import { REPO_ROOT } from '#service/repository-root.js';
import { TABLE_LIST, TABLES } from '#service/tables.js';

// The launcher of AWS's DynamoDB Local (local/dynamodb-local.ts): what a developer without
// Java is told, data kept between starts (a database per access key), one JVM per data folder,
// nothing answered lost by a close, a restart after a SIGKILL, and no JVM left behind.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dynamodb-local-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const TABLE_NAMES = TABLE_LIST.map((table) => table.localName).sort();

const tablesOf = async (endpoint: string) => {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    await ensureTables(client);
    return (await client.send(new ListTablesCommand({}))).TableNames;
  } finally {
    client.destroy();
  }
};

describe('without Java', () => {
  test('the error says exactly how to get it', () => {
    expect(() => findJava({ PATH: '/nonexistent' })).toThrow(
      /No `java` on PATH.*sudo apt-get install default-jre-headless.*Java 17\+ on PATH or point JAVA_HOME/,
    );
  });

  test('a JAVA_HOME without a java in it is named', () => {
    expect(() => findJava({ PATH: '', JAVA_HOME: '/nonexistent-jdk' })).toThrow(
      /JAVA_HOME is \/nonexistent-jdk, but \/nonexistent-jdk\/bin\/java is not an executable/,
    );
  });
});

test('a data folder keeps its tables across restarts, and serves one JVM at a time', async () => {
  const dbPath = join(dir, 'persist');
  const first = await startDynamoDbLocal({ dbPath });
  try {
    expect(await tablesOf(first.endpoint)).toEqual(TABLE_NAMES);
    await expect(startDynamoDbLocal({ dbPath })).rejects.toBeInstanceOf(DbPathInUseError);
  } finally {
    await first.close();
  }
  expect(await dbPathHolder(dbPath)).toBeUndefined();
  const second = await startDynamoDbLocal({ dbPath });
  try {
    const client = new DynamoDBClient({
      endpoint: second.endpoint,
      region: 'other',
      credentials: { accessKeyId: 'other', secretAccessKey: 'x' },
    });
    // No shared database: another access key (or region) has one of its own, empty.
    expect((await client.send(new ListTablesCommand({}))).TableNames).toEqual([]);
    client.destroy();
    const same = clientOf(second.endpoint, 'local');
    expect((await same.send(new ListTablesCommand({}))).TableNames).toEqual(TABLE_NAMES);
    same.destroy();
  } finally {
    await second.close();
  }
});

const KEY = { pk: { S: 'kept' }, sk: { S: 'item' } };
const clientOf = (endpoint: string, accessKeyId: string) =>
  new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId, secretAccessKey: 'x' }, maxAttempts: 1 });

const readKept = async (endpoint: string, accessKeyId: string) => {
  const client = clientOf(endpoint, accessKeyId);
  try {
    const { Item } = await client.send(
      new GetItemCommand({ TableName: TABLES.config.localName, Key: KEY, ConsistentRead: true }),
    );
    return Item?.inbox?.S;
  } finally {
    client.destroy();
  }
};

test("an older twin's shared database moves to the access key's database on start, its items kept", async () => {
  const dbPath = join(dir, 'legacy');
  const older = await startDynamoDbLocal({ dbPath });
  const client = clientOf(older.endpoint, 'OLDER');
  try {
    await ensureTables(client);
    await client.send(
      new PutItemCommand({ TableName: TABLES.config.localName, Item: { ...KEY, inbox: { S: 'NONE' } } }),
    );
  } finally {
    client.destroy();
    await older.close();
  }
  await rename(join(dbPath, dbFileOf('OLDER', 'local')), join(dbPath, LEGACY_SHARED_DB_FILE));

  const credentials = { accessKeyId: 'LOCALNEW', secretAccessKey: 'x' };
  const store = await startEmbeddedDynamo({ path: dbPath, credentials });
  try {
    expect(await readKept(store.endpoint, 'LOCALNEW')).toBe('NONE');
    expect((await readdir(dbPath)).filter((name) => name.endsWith('.db'))).toEqual([dbFileOf('LOCALNEW', 'local')]);
  } finally {
    await store.close();
  }
});

test('a transaction answered just before close() is kept: close waits for its commit', async () => {
  const dbPath = join(dir, 'close');
  const credentials = { accessKeyId: 'LOCALCLOSE', secretAccessKey: 'x' };
  for (let round = 0; round < 3; round += 1) {
    const store = await startEmbeddedDynamo({ path: dbPath, credentials });
    const client = clientOf(store.endpoint, credentials.accessKeyId);
    try {
      if (round === 0) await ensureTables(client);
      else
        expect({ round, kept: await readKept(store.endpoint, credentials.accessKeyId) }).toEqual({
          round,
          kept: `round-${round - 1}`,
        });
      await client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: TABLES.config.localName, Item: { ...KEY, inbox: { S: `round-${round}` } } } },
          ],
        }),
      );
    } finally {
      client.destroy();
      await store.close();
    }
  }
}, 120_000);

/** Writes 20 items through `endpoint` (argv), says so, then waits to be killed: run as a process of its own. */
const WRITER = `
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal } from '#local/dynamodb-local.js';
import { ensureTables } from '#local/dynamo.js';
const local = await startDynamoDbLocal({ dbPath: process.argv[1] });
const client = new DynamoDBClient({ endpoint: local.endpoint, region: 'local', credentials: { accessKeyId: 'LOCALKILL', secretAccessKey: 'x' } });
await ensureTables(client);
for (let i = 0; i < 20; i += 1) {
  await client.send(new PutItemCommand({ TableName: process.argv[2], Item: { pk: { S: 'killed' }, sk: { S: 'item-' + i } } }));
}
console.log('written');
setInterval(() => {}, 1000);
`;

// PR_SET_PDEATHSIG is Linux's: elsewhere a JVM can outlive a process killed with SIGKILL.
(process.platform === 'linux' ? test : test.skip)(
  'after a SIGKILL of its launcher, a restart comes up on the same folder and serves what was stored',
  async () => {
    const dbPath = join(dir, 'killed');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', WRITER, dbPath, TABLES.config.localName],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const deadline = Date.now() + 60_000;
    while (!output.includes('written') && Date.now() < deadline && child.exitCode === null) await sleep(50);
    child.kill('SIGKILL');
    while ((await dbPathHolder(dbPath)) !== undefined && Date.now() < deadline) await sleep(50);

    const again = await startDynamoDbLocal({ dbPath });
    const client = clientOf(again.endpoint, 'LOCALKILL');
    try {
      const { Count } = await client.send(
        new QueryCommand({
          TableName: TABLES.config.localName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: 'killed' } },
          ConsistentRead: true,
        }),
      );
      expect(Count).toBe(20);
    } finally {
      client.destroy();
      await again.close();
    }
  },
  90_000,
);

// PR_SET_PDEATHSIG is Linux's: elsewhere a JVM can outlive a process killed with SIGKILL.
(process.platform === 'linux' ? test : test.skip)(
  'a process killed with SIGKILL takes its DynamoDB Local with it',
  async () => {
    const dbPath = join(dir, 'orphan');
    const script = `
      import { startDynamoDbLocal } from '#local/dynamodb-local.js';
      const local = await startDynamoDbLocal({ dbPath: ${JSON.stringify(dbPath)} });
      console.log('pid', local.pid);
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const deadline = Date.now() + 60_000;
    while (!/pid \d+/.test(output) && Date.now() < deadline && child.exitCode === null) await sleep(50);
    const jvm = Number(output.match(/pid (\d+)/)?.[1]);
    expect(await dbPathHolder(dbPath)).toBe(jvm);

    child.kill('SIGKILL');
    while ((await dbPathHolder(dbPath)) !== undefined && Date.now() < deadline) await sleep(50);
    const left = await dbPathHolder(dbPath);
    if (left !== undefined) process.kill(left, 'SIGKILL'); // never leave it running after a failure
    expect(left).toBeUndefined();
  },
  90_000,
);
