import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, expect, test } from '@jest/globals';
import { settleWriteAheadLog, startLogCheckpoints } from '#local/sqlite-log.js';

// The twin's data directory: its database file in write-ahead-log mode, and that log folded back
// by a thread of its own (local/sqlite-log.ts), both left alone for a file SQLite cannot use.

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sqlite-log-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const journalMode = (file: string): string => {
  const db = new DatabaseSync(file);
  try {
    return (db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode;
  } finally {
    db.close();
  }
};

test('a new database file is created private and left in write-ahead-log mode', async () => {
  const file = join(dir, 'shared-local-instance.db');
  expect(await settleWriteAheadLog(file)).toBe(true);
  expect(journalMode(file)).toBe('wal');
  expect((await stat(file)).mode & 0o777).toBe(0o600);
});

test('a file that is no database is reported as not in that mode, and left as it was', async () => {
  const file = join(dir, 'shared-local-instance.db');
  const bytes = Buffer.from('not a database, whatever its name says'.repeat(200));
  await writeFile(file, bytes);
  expect(await settleWriteAheadLog(file)).toBe(false);
  expect(await readFile(file)).toEqual(bytes);
});

test("the checkpoints copy a writer's log into the database while it stays open, and stop when asked", async () => {
  const file = join(dir, 'shared-local-instance.db');
  await settleWriteAheadLog(file);
  // The writer stands for DynamoDB Local: its connection never checkpoints, and it stays open
  // (the last connection to close would fold the log back by itself).
  const writer = new DatabaseSync(file);
  writer.exec('PRAGMA wal_autocheckpoint=0; CREATE TABLE t (v TEXT)');
  const insert = writer.prepare('INSERT INTO t VALUES (?)');
  for (let i = 0; i < 200; i++) insert.run('x'.repeat(1000));
  const before = (await stat(file)).size;
  const checkpoints = await startLogCheckpoints(file, 10);
  try {
    const deadline = Date.now() + 5_000;
    while ((await stat(file)).size <= before && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await stat(file)).size).toBeGreaterThan(before + 100 * 1000);
  } finally {
    await checkpoints.stop();
    writer.close();
  }
});

test('no thread is started for a file SQLite cannot use', async () => {
  const file = join(dir, 'not-a-database');
  await writeFile(file, 'plain text, not SQLite'.repeat(300));
  const checkpoints = await startLogCheckpoints(file, 10);
  await expect(checkpoints.stop()).resolves.toBeUndefined();
  expect(await readFile(file, 'utf8')).toBe('plain text, not SQLite'.repeat(300));
});
