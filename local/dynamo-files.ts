import { existsSync } from 'node:fs';
import { readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { dbFileOf } from './dynamodb-local.js';

/**
 * DynamoDB Local's files in a data directory: one SQLite database per access key and region
 * (dbFileOf). When the twin's access key changes, its tables move with it.
 */

/** The file an older twin kept every table in (DynamoDB Local's -sharedDb). */
export const LEGACY_SHARED_DB_FILE = 'shared-local-instance.db';

/** SQLite's companions of a database file, which belong to it by name. */
const COMPANIONS = ['', '-wal', '-shm', '-journal'];

/** Whether the folder holds any of DynamoDB Local's databases. */
export const holdsDatabase = async (dbPath: string): Promise<boolean> =>
  (await readdir(dbPath).catch(() => [] as string[])).some((name) => name.endsWith('.db'));

/**
 * Puts the tables of `from` (a database file's name: another key's, or the older twin's shared
 * one) where DynamoDB Local looks for `accessKeyId` in `region`, unless that database exists.
 * A file an older twin left in SQLite's write-ahead-log mode goes back to the default journal
 * on the way, so that no log grows beside it. Run only while no DynamoDB Local has the folder.
 */
export const moveDatabase = async (
  dbPath: string,
  from: string,
  { accessKeyId, region }: { accessKeyId: string; region: string },
): Promise<boolean> => {
  const target = join(dbPath, dbFileOf(accessKeyId, region));
  const source = join(dbPath, from);
  if (source === target || existsSync(target) || !existsSync(source)) return false;
  if (existsSync(`${source}-wal`)) await leaveWriteAheadLog(source);
  for (const suffix of COMPANIONS) {
    if (existsSync(`${source}${suffix}`)) await rename(`${source}${suffix}`, `${target}${suffix}`);
  }
  return true;
};

/** Folds the log into the database and returns it to the default journal; left as it is without node:sqlite. */
const leaveWriteAheadLog = async (file: string): Promise<void> => {
  try {
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(file);
    try {
      db.exec('PRAGMA journal_mode=DELETE');
    } finally {
      db.close();
    }
  } catch {
    // SQLite replays the log when DynamoDB Local opens the file: the tables are kept either way.
  }
};
