import { execFileSync, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient, GetItemCommand, ListTablesCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ensureTables } from '#local/dynamo.js';
import { DbPathInUseError, dbPathHolder, findJava, SHARED_DB_FILE, startDynamoDbLocal } from '#local/dynamodb-local.js';
import { REPO_ROOT } from '#service/repository-root.js';
import { TABLE_LIST, TABLES } from '#service/tables.js';

// The launcher of AWS's DynamoDB Local (local/dynamodb-local.ts): what a developer without
// Java is told, data kept between starts, one JVM per data folder, and no JVM left behind.
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
    // -sharedDb: the same database whatever the credentials and region.
    expect((await client.send(new ListTablesCommand({}))).TableNames).toEqual(TABLE_NAMES);
    client.destroy();
  } finally {
    await second.close();
  }
});

/** SQLite's file header: bytes 18 and 19 are 2 in write-ahead-log mode, 1 in rollback-journal mode. */
const journalOf = async (file: string): Promise<'wal' | 'rollback'> => {
  const handle = await open(file, 'r');
  try {
    const { buffer } = await handle.read(Buffer.alloc(20), 0, 20, 0);
    return buffer[18] === 2 && buffer[19] === 2 ? 'wal' : 'rollback';
  } finally {
    await handle.close();
  }
};

test("a data folder's database is in SQLite's write-ahead-log mode; an older file is converted on start, its items kept", async () => {
  const dbPath = join(dir, 'wal');
  const file = join(dbPath, SHARED_DB_FILE);
  const key = { pk: { S: 'wal-test' }, sk: { S: 'item' } };
  const withClient = async <T>(endpoint: string, use: (client: DynamoDBClient) => Promise<T>): Promise<T> => {
    const client = new DynamoDBClient({
      endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      return await use(client);
    } finally {
      client.destroy();
    }
  };
  const first = await startDynamoDbLocal({ dbPath });
  try {
    await tablesOf(first.endpoint);
    await withClient(first.endpoint, (client) =>
      client.send(new PutItemCommand({ TableName: TABLES.config.localName, Item: { ...key, inbox: { S: 'NONE' } } })),
    );
  } finally {
    await first.close();
  }
  expect(await journalOf(file)).toBe('wal');

  // A file an earlier twin wrote in the default journal mode.
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode=DELETE');
  db.close();
  expect(await journalOf(file)).toBe('rollback');

  const second = await startDynamoDbLocal({ dbPath });
  try {
    expect(await journalOf(file)).toBe('wal');
    const { Item } = await withClient(second.endpoint, (client) =>
      client.send(new GetItemCommand({ TableName: TABLES.config.localName, Key: key, ConsistentRead: true })),
    );
    expect(Item?.inbox).toEqual({ S: 'NONE' });
  } finally {
    await second.close();
  }
});

/** Writes 200 items of 1 KB to `table` through `endpoint` (argv), then waits a second: run as a process of its own. */
const WRITER = `
const { DynamoDBClient, PutItemCommand } = require('@aws-sdk/client-dynamodb');
const [endpoint, table] = process.argv.slice(1);
const client = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
const put = (i) => client.send(new PutItemCommand({
  TableName: table,
  Item: { pk: { S: 'busy' }, sk: { S: 'item-' + i }, note: { S: 'x'.repeat(1000) } },
}));
(async () => {
  for (let i = 0; i < 200; i += 10) await Promise.all(Array.from({ length: 10 }, (_, j) => put(i + j)));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  client.destroy();
})();
`;

test('the log is copied while the event loop that started DynamoDB Local is busy (the copying has a thread of its own)', async () => {
  const dbPath = join(dir, 'busy-loop');
  const file = join(dbPath, SHARED_DB_FILE);
  const local = await startDynamoDbLocal({ dbPath, logCheckpointMs: 100 });
  try {
    await tablesOf(local.endpoint);
    await sleep(300);
    const before = statSync(file).size;
    // This process's event loop is blocked until the writer is done, as the twin's is by a function's work.
    execFileSync(process.execPath, ['-e', WRITER, local.endpoint, TABLES.config.localName], { cwd: REPO_ROOT });
    expect(statSync(file).size).toBeGreaterThan(before + 100 * 1_000);
  } finally {
    await local.close();
  }
});

test("DynamoDB Local's log is copied into the database while it runs and starts over, and is gone once it stops", async () => {
  const dbPath = join(dir, 'log');
  const file = join(dbPath, SHARED_DB_FILE);
  const sizeOf = async (path: string) => (await stat(path).catch(() => undefined))?.size ?? 0;
  const keyOf = (burst: number, item: number) => ({ pk: { S: `log-${burst}` }, sk: { S: `item-${item}` } });
  const local = await startDynamoDbLocal({ dbPath, logCheckpointMs: 100 });
  const client = new DynamoDBClient({
    endpoint: local.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const logSizes: number[] = [];
  const BURSTS = 8;
  try {
    await tablesOf(local.endpoint);
    // Bursts of writes with pauses between them, as a developer's requests come.
    for (let burst = 0; burst < BURSTS; burst += 1) {
      for (let item = 0; item < 100; item += 10) {
        await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            client.send(
              new PutItemCommand({
                TableName: TABLES.config.localName,
                Item: { ...keyOf(burst, item + i), note: { S: 'x'.repeat(1_000) } },
              }),
            ),
          ),
        );
      }
      await sleep(300);
      logSizes.push(await sizeOf(`${file}-wal`));
    }
    // Without checkpoints every burst adds to the log (twice the size from half way to the end)
    // and the database file stays as DynamoDB Local created it.
    expect(logSizes[BURSTS - 1]).toBeLessThan(1.5 * (logSizes[BURSTS / 2 - 1] as number));
    expect(await sizeOf(file)).toBeGreaterThan(BURSTS * 100 * 1_000);
  } finally {
    client.destroy();
    await local.close();
  }
  expect(existsSync(`${file}-wal`)).toBe(false);

  const again = await startDynamoDbLocal({ dbPath });
  const reader = new DynamoDBClient({
    endpoint: again.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    for (const [burst, item] of [
      [0, 0],
      [3, 57],
      [7, 99],
    ] as const) {
      const { Item } = await reader.send(
        new GetItemCommand({ TableName: TABLES.config.localName, Key: keyOf(burst, item), ConsistentRead: true }),
      );
      expect(Item?.note?.S).toHaveLength(1_000);
    }
  } finally {
    reader.destroy();
    await again.close();
  }
});

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
