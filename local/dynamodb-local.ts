import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { assertPortFree, PortInUseError } from './ports.js';
import { PRIVATE_FILE_MODE, privateDirectory, tightenFiles, withPrivateUmask } from './private-files.js';
import { HAS_PROC, isRunning } from './process-state.js';

/**
 * AWS's own DynamoDB Local (a Java program, shipped inside the npm package
 * amplify-dynamodb-simulator): the same request validation as DynamoDB, key byte limits
 * included, plus transactions, streams and TTL, none of which dynalite has.
 */

export const JAVA_INSTALL_HINT =
  'DynamoDB Local needs Java 17 or newer. Install it with `sudo apt-get install default-jre-headless` ' +
  '(Debian/Ubuntu), or put any Java 17+ on PATH or point JAVA_HOME at it.';

export class JavaMissingError extends Error {
  constructor(detail: string) {
    super(`${detail}. ${JAVA_INSTALL_HINT}`);
    this.name = 'JavaMissingError';
  }
}

/** The folder holding DynamoDBLocal.jar and its DynamoDBLocal_lib (native SQLite libraries). */
export const emulatorDir = (): string =>
  join(dirname(createRequire(import.meta.url).resolve('amplify-dynamodb-simulator/package.json')), 'emulator');

const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

const onPath = (command: string, env: NodeJS.ProcessEnv): string | undefined =>
  (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, command))
    .find(isExecutable);

/** JAVA_HOME's java when set, else the one on PATH; throws the install instruction when there is none. */
export const findJava = (env: NodeJS.ProcessEnv = process.env): string => {
  if (env.JAVA_HOME) {
    const java = join(env.JAVA_HOME, 'bin', 'java');
    if (isExecutable(java)) return java;
    throw new JavaMissingError(`JAVA_HOME is ${env.JAVA_HOME}, but ${java} is not an executable`);
  }
  const java = onPath('java', env);
  if (!java) throw new JavaMissingError('No `java` on PATH');
  return java;
};

// A quick start and steady writes: the JDK's class-data archive (Xshare:auto) and a small first
// heap keep the start short; both JIT tiers and the parallel collector keep DynamoDB Local's one
// SQLite thread busy through the twin's large writes instead of stalling it in collector pauses
// (docs/design.md, "The local twin's DynamoDB Local", has the figures).
const JVM_FLAGS = ['-Xshare:auto', '-Xms64m', '-Xmx512m', '-XX:+UseParallelGC', '-Xss512k'];

/**
 * The file in which DynamoDB Local keeps the tables of one access key and region: without a
 * shared database each pair has its own.
 */
export const dbFileOf = (accessKeyId: string, region: string): string => `${accessKeyId}_${region}.db`;

/** A port that was free a moment ago on 127.0.0.1. */
export const freePort = (): Promise<number> =>
  new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });

/**
 * Whether DynamoDB Local answers once its server listens: a ListTables without credentials,
 * which it refuses before opening any database (so no file is created for a probe).
 */
const answers = async (endpoint: string): Promise<boolean> => {
  try {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.ListTables' },
      body: '{}',
      signal: AbortSignal.timeout(2_000),
    });
    return (await response.text()).includes('MissingAuthenticationToken');
  } catch {
    return false;
  }
};

/** Waits until a DynamoDB Local started elsewhere (e.g. by a Jest global setup) answers. */
export const waitUntilAnswering = async (endpoint: string, timeoutMs = 60_000): Promise<void> => {
  const deadline = performance.now() + timeoutMs;
  while (!(await answers(endpoint))) {
    if (performance.now() > deadline)
      throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

export const LOCK_FILE = 'dynamodb-local.pid';

/** `pid`'s command line, where /proc tells. */
const commandLine = (pid: number): string[] | undefined => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return HAS_PROC ? [] : undefined;
  }
};

/** Whether `pid` is a running DynamoDB Local: a recorded pid may since belong to another program. */
const isDynamoDbLocal = (pid: number): boolean =>
  isRunning(pid) && (commandLine(pid)?.includes('DynamoDBLocal.jar') ?? true);

/** The lock file: the JVM's pid, then the pid of the process that launched it (older files lack it). */
const parseLock = (text: string): { pid: number; launcher: number | undefined } | undefined => {
  const [pid = Number.NaN, launcher = Number.NaN] = text.split('\n').map(Number);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return { pid, launcher: Number.isInteger(launcher) && launcher > 0 ? launcher : undefined };
};

const readLock = async (dbPath: string) => parseLock(await readFile(join(dbPath, LOCK_FILE), 'utf8').catch(() => ''));

const readLockSync = (lockFile: string): number | undefined => {
  try {
    return parseLock(readFileSync(lockFile, 'utf8'))?.pid;
  } catch {
    return undefined;
  }
};

/**
 * The pid of the live DynamoDB Local that serves `dbPath`, if any. Two JVMs on one SQLite
 * file would step on each other, so a launcher records its JVM's pid in the folder; a pid
 * that no longer runs is a crash left behind and frees the folder.
 */
export const dbPathHolder = async (dbPath: string): Promise<number | undefined> => {
  const lock = await readLock(dbPath);
  return lock && isDynamoDbLocal(lock.pid) ? lock.pid : undefined;
};

const gone = async (pid: number, timeoutMs: number): Promise<boolean> => {
  const deadline = performance.now() + timeoutMs;
  while (isDynamoDbLocal(pid)) {
    if (performance.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
};

/** The folder, as the launcher passes it to the XML that starts DynamoDB Local (below). */
const DB_PATH_PROPERTY = 'ddb.dbPath';

/** Whether the JVM's command line names `dbPath` (true where there is no /proc to ask). */
const serves = (pid: number, dbPath: string): boolean => {
  const command = commandLine(pid);
  if (!command) return true;
  return command.includes(`${DB_PATH_PROPERTY}=${resolve(dbPath)}`) || command.includes(resolve(dbPath));
};

/**
 * Stops the DynamoDB Local that still holds `dbPath` when the process that launched it died
 * without closing it: e.g. `npm run dev` killed by its watcher while stopping, for a second
 * quick restart. On Linux the kernel kills such a JVM with its launcher, a moment later;
 * elsewhere nothing would. Resolves once the files and the JVM's port are free; a JVM whose
 * launcher runs is left alone.
 */
export const reclaimOrphanedDbPath = async (dbPath: string): Promise<boolean> => {
  const lock = await readLock(dbPath);
  if (!lock?.launcher || isRunning(lock.launcher) || !isDynamoDbLocal(lock.pid) || !serves(lock.pid, dbPath)) {
    return false;
  }
  if (await gone(lock.pid, 2_000)) return true;
  try {
    process.kill(lock.pid, 'SIGKILL');
  } catch {
    // Gone already, or not ours to stop: the holder check that follows says so.
  }
  // A loaded machine can take seconds to finish off a JVM.
  await gone(lock.pid, 15_000);
  return true;
};

/** After a reclaim the stopped JVM's port frees a moment after the process is gone. */
const untilPortFree = async (port: number, timeoutMs: number): Promise<void> => {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return await assertPortFree('dynamodb', undefined, port);
    } catch (error) {
      if (!(error instanceof PortInUseError) || performance.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
};

export class DbPathInUseError extends Error {
  constructor(
    readonly dbPath: string,
    readonly pid: number,
  ) {
    super(`The DynamoDB Local files in ${dbPath} are in use by another process (pid ${pid})`);
    this.name = 'DbPathInUseError';
  }
}

export interface DynamoDbLocalOptions {
  /** Default: a free port on 127.0.0.1. */
  port?: number;
  /** Persist in this folder (one SQLite file per access key and region, dbFileOf); default: in memory. */
  dbPath?: string;
  /** How long to wait for the first answer. */
  startTimeoutMs?: number;
  /** Runs once the folder is free and its port too, before the JVM starts (e.g. to move a database file). */
  beforeStart?: () => Promise<void>;
  env?: NodeJS.ProcessEnv;
}

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  pid: number;
  /** From spawn to the first answered request. */
  startMs: number;
  close(): Promise<void>;
}

// On Linux the JVM is tied to this process with PR_SET_PDEATHSIG (util-linux's setpriv): if
// this process dies without closing it (SIGKILL, a crash), the kernel kills the JVM too.
const SETPRIV = process.platform === 'linux' && isExecutable('/usr/bin/setpriv') ? '/usr/bin/setpriv' : undefined;

const running = new Set<ChildProcess>();
let exitHookInstalled = false;
const killAllOnExit = () => {
  for (const child of running) child.kill('SIGKILL');
};

/** A file beside this one as XmlConfiguration's argument: a path holding `=` would read as a property. */
const xmlUrl = (name: string) =>
  pathToFileURL(fileURLToPath(new URL(`./${name}`, import.meta.url))).href.replaceAll('=', '%3D');

/**
 * DynamoDB Local has no bind option: its main() listens on every interface, where anyone on the
 * network could read and write the tables (the credentials among them). It is started instead
 * through Jetty's XmlConfiguration, which its jar ships, with this file: the same request handler
 * in a Jetty server on 127.0.0.1 only, answering requests for 127.0.0.1 and localhost only.
 */
const LOOPBACK_XML = xmlUrl('dynamodb-local-loopback.xml');

const waitForExit = (child: ChildProcess, ms: number): Promise<boolean> =>
  new Promise((resolveExit) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolveExit(true);
    const timer = setTimeout(() => resolveExit(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolveExit(true);
    });
  });

export const startDynamoDbLocal = async ({
  port: givenPort,
  dbPath,
  startTimeoutMs = 60_000,
  beforeStart,
  env = process.env,
}: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> => {
  const java = findJava(env);
  const cwd = emulatorDir();
  if (!existsSync(join(cwd, 'DynamoDBLocal.jar'))) {
    throw new Error(`DynamoDBLocal.jar is missing from ${cwd}: run \`npm install\``);
  }
  let reclaimed = false;
  if (dbPath) {
    // Its files hold every table: the owner's alone (the JVM creates them under umask 077, below).
    await privateDirectory(dbPath);
    await tightenFiles(dbPath);
    reclaimed = await reclaimOrphanedDbPath(dbPath);
    const holder = await dbPathHolder(dbPath);
    if (holder !== undefined) throw new DbPathInUseError(dbPath, holder);
  }
  if (givenPort) {
    await (reclaimed ? untilPortFree(givenPort, 10_000) : assertPortFree('dynamodb', '127.0.0.1', givenPort));
  }
  await beforeStart?.();
  const port = givenPort || (await freePort());
  const endpoint = `http://127.0.0.1:${port}`;
  const args = [
    ...JVM_FLAGS,
    '-Djava.library.path=DynamoDBLocal_lib',
    // The jar's manifest puts Jetty's XmlConfiguration and DynamoDB Local's libraries on the class path.
    '-cp',
    'DynamoDBLocal.jar',
    'org.eclipse.jetty.xml.XmlConfiguration',
    LOOPBACK_XML,
    `ddb.port=${port}`,
    `ddb.inMemory=${dbPath === undefined}`,
    ...(dbPath ? [`${DB_PATH_PROPERTY}=${resolve(dbPath)}`] : []),
  ];
  const started = performance.now();
  const child = withPrivateUmask(() =>
    spawn(SETPRIV ?? java, SETPRIV ? ['--pdeathsig', 'KILL', '--', java, ...args] : args, {
      cwd,
      env: { ...env, DDB_LOCAL_TELEMETRY: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group where the pdeath signal guards it: a Ctrl-C in the terminal then
      // reaches `npm start`, which finishes its work and closes the JVM itself.
      detached: Boolean(SETPRIV),
    }),
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const spawnError = new Promise<Error>((resolveError) => child.once('error', resolveError));
  const exited = new Promise<string>((resolveExit) =>
    child.once('exit', (code, signal) => resolveExit(`exited (${signal ?? `code ${code}`})`)),
  );
  running.add(child);
  if (!exitHookInstalled) {
    process.on('exit', killAllOnExit);
    exitHookInstalled = true;
  }
  const lockFile = dbPath ? join(dbPath, LOCK_FILE) : undefined;
  const release = () => {
    running.delete(child);
    // Only its own lock: a JVM stopped as an orphan may exit after another took the folder.
    if (lockFile && readLockSync(lockFile) === child.pid) rmSync(lockFile, { force: true });
  };
  child.once('exit', release);

  let closing: Promise<void> | undefined;
  // SIGTERM: the JVM's shutdown lets DynamoDB Local finish the writes it has answered (a
  // transaction's COMMIT runs on its SQLite thread just after the answer); SIGKILL only when it hangs.
  const close = () => {
    closing ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        if (!(await waitForExit(child, 5_000))) {
          child.kill('SIGKILL');
          await waitForExit(child, 5_000);
        }
      }
      release();
    })();
    return closing;
  };

  try {
    if (lockFile && child.pid) {
      await writeFile(lockFile, `${child.pid}\n${process.pid}\n`, { mode: PRIVATE_FILE_MODE });
    }
    const deadline = started + startTimeoutMs;
    let ready = false;
    while (!ready) {
      const early = await Promise.race([
        spawnError.then((error) => `could not be started: ${error.message}`),
        exited,
        new Promise<undefined>((r) => setTimeout(() => r(undefined), 50)),
      ]);
      if (early) throw new Error(`DynamoDB Local ${early}\n${output.trim()}`);
      // Taken since the check (or by a port chosen free): the JVM then waits forever.
      if (output.includes('java.net.BindException')) throw new PortInUseError('dynamodb', '127.0.0.1', port);
      // A start that failed otherwise (e.g. a jar the XML does not fit) leaves Jetty's threads running.
      if (output.includes('Exception in thread "main"'))
        throw new Error(`DynamoDB Local did not start\n${output.trim()}`);
      if (performance.now() > deadline) {
        throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${startTimeoutMs} ms\n${output.trim()}`);
      }
      ready = await answers(endpoint);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    endpoint,
    port,
    pid: child.pid as number,
    startMs: Math.round(performance.now() - started),
    close,
  };
};
