import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from '#service/repository-root.js';
import { dbPathHolder, reclaimOrphanedDbPath } from './dynamodb-local.js';
import { PRIVATE_FILE_MODE, privateDirectory, tightenFiles } from './private-files.js';
import { isRunning } from './process-state.js';

/**
 * The local runtime's data directory: the DynamoDB Local files (SQLite), the queue snapshot, the
 * local credential, the AWS credential of its stand-ins and, while a server runs, its endpoints.
 */
export const DEFAULT_DATA_DIR = join(REPO_ROOT, '.data');

export const dataPaths = (dataDir: string) => ({
  dynamo: join(dataDir, 'dynamodb'),
  /** The AWS credential of the stand-ins and DynamoDB Local (local/aws-credential.ts). */
  awsCredential: join(dataDir, 'aws-credential.json'),
  queues: join(dataDir, 'queues.json'),
  credential: join(dataDir, 'local-credential.json'),
  endpoints: join(dataDir, 'endpoint.json'),
  /** How far the stream twin has read each table's stream (local/streams/checkpoints.ts). */
  streams: join(dataDir, 'streams.json'),
  /** Every event the service published, one JSON line each. */
  events: join(dataDir, 'events.jsonl'),
  /** The keys of the links in emails, served by the Secrets Manager stand-in (local/secrets/). */
  linkKeys: join(dataDir, 'link-keys.json'),
  /** The files bucket's objects, kept by the S3 stand-in (local/files/local-s3.ts). */
  files: join(dataDir, 'files'),
  /** The banner's `export` line, for `source` (local/shell-env.ts). */
  shellEnv: join(dataDir, 'env.sh'),
});

export const resolveDataDir = (env: NodeJS.ProcessEnv = process.env): string =>
  env.DATA_DIR ? resolve(env.DATA_DIR) : DEFAULT_DATA_DIR;

/** Written by a running `npm start` so that other tools can talk to its DynamoDB. */
export interface RunningServer {
  pid: number;
  apiUrl: string;
  dynamoEndpoint: string;
  sqsEndpoint: string;
  /** The Secrets Manager stand-in holding the link keys (absent in a file an older twin wrote). */
  secretsEndpoint?: string;
  /** The S3 stand-in holding the files bucket (absent in a file an older twin wrote). */
  filesEndpoint?: string;
  startedAt: string;
}

/** Creates the data directory, or tightens one an older twin left readable (local/private-files.ts). */
export const secureDataDir = async (dataDir: string): Promise<void> => {
  await privateDirectory(dataDir);
  await tightenFiles(dataDir);
};

export const writeRunningServer = async (dataDir: string, running: RunningServer): Promise<void> => {
  await privateDirectory(dataDir);
  const file = dataPaths(dataDir).endpoints;
  await writeFile(file, `${JSON.stringify(running, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  await chmod(file, PRIVATE_FILE_MODE);
};

export const removeRunningServer = async (dataDir: string, pid = process.pid): Promise<void> => {
  const running = await readRunningServer(dataDir, { checkAlive: false });
  if (running?.pid === pid) await rm(dataPaths(dataDir).endpoints, { force: true });
};

/** The server recorded in the data directory, if its process still runs. */
export const readRunningServer = async (
  dataDir: string,
  { checkAlive = true }: { checkAlive?: boolean } = {},
): Promise<RunningServer | undefined> => {
  try {
    const running = JSON.parse(await readFile(dataPaths(dataDir).endpoints, 'utf8')) as RunningServer;
    if (typeof running.pid !== 'number' || typeof running.dynamoEndpoint !== 'string') return undefined;
    return !checkAlive || isRunning(running.pid) ? running : undefined;
  } catch {
    return undefined;
  }
};

export class DataDirLockedError extends Error {
  constructor(readonly path: string) {
    super(
      `The local DynamoDB files in ${path} are in use by another process (an \`npm start\` or credentials ` +
        'command with the same DATA_DIR). Stop it, or choose another DATA_DIR.',
    );
  }
}

/**
 * Throws DataDirLockedError while a DynamoDB Local serves the files in `path` (its launcher
 * records the JVM's pid there, local/dynamodb-local.ts), so that callers can name the server
 * that holds them before starting another. One left behind by a launcher that died is stopped.
 */
export const assertDynamoFilesFree = async (path: string): Promise<void> => {
  await privateDirectory(path);
  await reclaimOrphanedDbPath(path);
  if ((await dbPathHolder(path)) !== undefined) throw new DataDirLockedError(path);
};

/**
 * Makes the data directory ready for a runtime: created and private, its DynamoDB files free.
 * Files another server holds fail the start, naming that server when it left its address behind.
 */
export const claimDataDir = async (dataDir: string): Promise<void> => {
  await secureDataDir(dataDir);
  try {
    await assertDynamoFilesFree(dataPaths(dataDir).dynamo);
  } catch (error) {
    const other = error instanceof DataDirLockedError ? await readRunningServer(dataDir) : undefined;
    if (other && other.pid !== process.pid) {
      throw new Error(
        `A local server (pid ${other.pid}) already serves ${other.apiUrl} from ${dataDir}. ` +
          'Stop it, or start this one with another DATA_DIR or --in-memory, and another --port (or --port 0, any free one).',
      );
    }
    throw error;
  }
};
