import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { DbPathInUseError, dbPathHolder, LOCK_FILE, startDynamoDbLocal } from '#local/dynamodb-local.js';

// The lock on DynamoDB Local's files (local/dynamodb-local.ts). `npm run dev` restarts on every
// save, and its watcher kills a server that is slow to stop: the JVM it launched must then not
// keep the files and the port from the next start.
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dynamodb-local-lock-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('a DynamoDB Local whose launcher died is stopped; the next start takes its files and its port', async () => {
  const dbPath = join(dir, 'orphaned');
  const first = await startDynamoDbLocal({ dbPath });
  try {
    // As if its launcher had been killed: the lock names a launcher that no longer runs.
    const deadLauncher = spawnSync(process.execPath, ['-e', '']).pid;
    await writeFile(join(dbPath, LOCK_FILE), `${first.pid}\n${deadLauncher}\n`);

    const second = await startDynamoDbLocal({ dbPath, port: first.port });
    try {
      expect(second.endpoint).toBe(first.endpoint);
      expect(await dbPathHolder(dbPath)).toBe(second.pid);
    } finally {
      await second.close();
    }
  } finally {
    await first.close();
  }
  expect(await dbPathHolder(dbPath)).toBeUndefined();
}, 60_000);

test('one whose launcher runs keeps its files', async () => {
  const dbPath = join(dir, 'held');
  const first = await startDynamoDbLocal({ dbPath });
  try {
    await expect(startDynamoDbLocal({ dbPath })).rejects.toBeInstanceOf(DbPathInUseError);
    expect(await dbPathHolder(dbPath)).toBe(first.pid);
  } finally {
    await first.close();
  }
}, 60_000);
