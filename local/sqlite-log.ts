import { Worker } from 'node:worker_threads';
import { withPrivateUmask } from './private-files.js';

/**
 * DynamoDB Local's database file in SQLite's write-ahead-log mode, and that log kept short.
 *
 * In its default rollback-journal mode every write creates, syncs and deletes a journal file;
 * with the log it appends to one file, and a write is as durable (synced at each commit,
 * replayed after a crash). The mode is kept in the file, and DynamoDB Local leaves it as it finds
 * it. Measured on 2 cores: DynamoDB Local's PartiQL writes on disk went from some 600 to some 950
 * a second (in memory: some 1,850), and a config/set of 1000 users x 10 documents through
 * `npm start` from a 503 after 27.8 s (7,200 entries written) to a 200 in 23 s.
 *
 * DynamoDB Local's own connection never copies the log back into the database (SQLite's
 * automatic checkpoint never ran there: after some 70,000 writes in one `npm start`, a 4 KiB
 * database beside a 2.8 GB log), so the twin does it from a connection of its own: a passive
 * checkpoint, which waits for no one and blocks no reader or writer. A write that then finds the
 * whole log copied and no reader in it starts the log over from its beginning: between bursts of
 * writes, so the file grows only as large as one burst (it keeps that size until DynamoDB Local
 * stops).
 *
 * A Node without node:sqlite, or a file SQLite cannot open, is left as it is: DynamoDB Local then
 * works, or reports, as before.
 */

type Sqlite = typeof import('node:sqlite');

const loadSqlite = async (): Promise<Sqlite | undefined> => {
  try {
    return await import('node:sqlite');
  } catch {
    return undefined;
  }
};

/**
 * Opens the file (created empty, 0600, if absent), puts it in write-ahead-log mode and closes it.
 * As the last connection to close, SQLite copies any log left by an earlier run into the database
 * and deletes the log: run it before DynamoDB Local starts and after it has exited. Resolves
 * whether the file is in that mode (false without node:sqlite, or for a file SQLite cannot read).
 */
export const settleWriteAheadLog = async (dbFile: string): Promise<boolean> => {
  const sqlite = await loadSqlite();
  if (!sqlite) return false;
  try {
    return withPrivateUmask(() => {
      const db = new sqlite.DatabaseSync(dbFile);
      try {
        return (db.prepare('PRAGMA journal_mode=WAL').get() as { journal_mode?: string }).journal_mode === 'wal';
      } finally {
        db.close();
      }
    });
  } catch {
    // Not a database SQLite can open: DynamoDB Local says so when it opens it.
    return false;
  }
};

export interface LogCheckpoints {
  /** Resolves once the thread's connection is closed (the log can then be folded back). */
  stop(): Promise<void>;
}

const NONE: LogCheckpoints = { stop: async () => {} };

/**
 * The checkpoints' thread: a connection of its own and a passive checkpoint every `everyMs`. On
 * its own thread because a checkpoint copies pages: 5-11 ms a round while a large set writes,
 * measured, which on the twin's event loop would delay the functions it runs.
 */
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
let db;
let checkpoint;
try {
  db = new DatabaseSync(workerData.file, { timeout: 0 });
  checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
} catch {
  // Not a database SQLite can open (it opens any file; preparing tells): left as it is.
  db?.close();
}
if (checkpoint) {
  const timer = setInterval(() => {
    try {
      checkpoint.get();
    } catch {
      // Busy or mid-recovery: the next round copies what this one could not.
    }
  }, workerData.everyMs);
  parentPort.once('message', () => {
    clearInterval(timer);
    db.close();
    parentPort.close();
  });
}
parentPort.postMessage(checkpoint ? 'ready' : 'unusable');
`;

/** How long a stop waits for the thread to close its connection before ending it. */
const STOP_WAIT_MS = 2_000;

/** Checkpoints the log of a database DynamoDB Local has open, every `everyMs`, until stopped. */
export const startLogCheckpoints = async (dbFile: string, everyMs: number): Promise<LogCheckpoints> => {
  if (!(await loadSqlite())) return NONE;
  // No execArgv: the thread needs neither tsx's loader nor the twin's other flags.
  const worker = new Worker(CHECKPOINTER, { eval: true, execArgv: [], workerData: { file: dbFile, everyMs } });
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const state = await Promise.race([
    new Promise<unknown>((resolve) => worker.once('message', resolve)),
    new Promise<string>((resolve) => worker.once('error', () => resolve('unusable'))),
    exited.then(() => 'unusable'),
  ]);
  if (state !== 'ready') {
    await worker.terminate();
    return NONE;
  }
  let stopping: Promise<void> | undefined;
  return {
    stop: () => {
      stopping ??= (async () => {
        worker.postMessage('stop');
        const timer = setTimeout(() => void worker.terminate(), STOP_WAIT_MS);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
};
