import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient, ResourceInUseException } from '@aws-sdk/client-dynamodb';
import {
  BatchExecuteStatementCommand,
  DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { startDynamoCommitBarrier } from '#local/dynamo-commit-barrier.js';
import { startDynamoDbLocal } from '#local/dynamodb-local.js';

// DynamoDB Local answers a TransactWriteItems before its COMMIT has run. Killed the moment the
// answer arrives, it lost the transaction in 9 of 10 kills measured; through the twin's commit
// barrier (local/dynamo-commit-barrier.ts), which the functions use, an answered transaction is
// kept, every time. A PartiQL BatchExecuteStatement (a job page's stamps and deletes) needs no
// barrier: its statements are committed before the answer (0 lost of 48 in 16 kills measured
// without one).
let dbPath: string;
beforeAll(async () => {
  dbPath = await mkdtemp(join(tmpdir(), 'commit-barrier-'));
});
afterAll(async () => {
  await rm(dbPath, { recursive: true, force: true });
});

const TABLE = 'transactions';

const open = async ({ barrier: withBarrier = true } = {}) => {
  const local = await startDynamoDbLocal({ dbPath });
  const barrier = withBarrier ? await startDynamoCommitBarrier({ target: local.endpoint }) : undefined;
  const raw = new DynamoDBClient({
    endpoint: barrier?.endpoint ?? local.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  try {
    await raw.send(
      new CreateTableCommand({
        TableName: TABLE,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'k', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'k', KeyType: 'HASH' }],
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  const close = async () => {
    raw.destroy();
    await barrier?.close();
    await local.close();
  };
  return { local, doc: DynamoDBDocumentClient.from(raw), close };
};

/** Keys missing after a restart. */
const missingOf = async (keys: string[]) => {
  const { doc, close } = await open();
  try {
    const missing: string[] = [];
    for (const k of keys) {
      const { Item } = await doc.send(new GetCommand({ TableName: TABLE, Key: { k }, ConsistentRead: true }));
      if (!Item) missing.push(k);
    }
    return missing;
  } finally {
    await close();
  }
};

const put = (keys: string[]) =>
  new TransactWriteCommand({ TransactItems: keys.map((k) => ({ Put: { TableName: TABLE, Item: { k } } })) });

test('a transaction answered just before DynamoDB Local is killed is there after the restart', async () => {
  const KILLS = 5;
  const answered: string[][] = [];
  for (let kill = 0; kill < KILLS; kill++) {
    const { local, doc, close } = await open();
    // Some traffic, then one transaction, and the kill the moment its answer is in.
    for (let i = 0; i < 10; i++) await doc.send(put([`warm-${kill}-${i}`]));
    const keys = [0, 1, 2].map((j) => `kill-${kill}-${j}`);
    await doc.send(put(keys));
    process.kill(local.pid, 'SIGKILL');
    answered.push(keys);
    await close();
  }
  expect(await missingOf(answered.flat())).toEqual([]);
}, 180_000);

test('a PartiQL batch answered just before DynamoDB Local is killed is there after the restart, with no barrier', async () => {
  const insert = (keys: string[]) =>
    new BatchExecuteStatementCommand({
      Statements: keys.map((k) => ({ Statement: `INSERT INTO "${TABLE}" VALUE {'k': ?}`, Parameters: [k] })),
    });
  const answered: string[] = [];
  for (let kill = 0; kill < 5; kill++) {
    const { local, doc, close } = await open({ barrier: false });
    for (let i = 0; i < 10; i++) await doc.send(insert([`partiql-warm-${kill}-${i}`]));
    const keys = [0, 1, 2].map((j) => `partiql-kill-${kill}-${j}`);
    const { Responses } = await doc.send(insert(keys));
    process.kill(local.pid, 'SIGKILL');
    expect(Responses?.filter((response) => response.Error)).toEqual([]);
    answered.push(...keys);
    await close();
  }
  expect(await missingOf(answered)).toEqual([]);
}, 180_000);
