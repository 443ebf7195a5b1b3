import { type ChildProcess, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import type { FunctionLoader, Handler, RouteFunction } from '../function-loader.js';
import { contextData, errorFrom, type HostMessage, type ProcessMessage } from './messages.js';

/**
 * `npm run dev`'s functions: they run in a child process (function-process.ts), and a code
 * change replaces that process with a fresh one, so the next invocation runs the new code,
 * while the twin around them (DynamoDB Local, the SQS and EventBridge twins, the streams, the
 * API server) keeps running. The old process finishes the invocations it has, then exits. The
 * fresh one is a spare started ahead, which has loaded the installed packages but none of the
 * project's code.
 */

const PROCESS_ENTRY = fileURLToPath(new URL('./function-process.ts', import.meta.url));
/** tsx's loader, so that the process imports the TypeScript sources as this one does. */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
/** How long a replaced process may take over the invocations it has: past the longest function timeout (60 s). */
const RETIRED_GRACE_MS = 70_000;
/** How long the functions get to finish when the twin stops; the queues have already waited for theirs. */
const CLOSE_GRACE_MS = 5_000;
/**
 * A spare process is started this long after a reload (or the start), once the new process has
 * had the machine to itself for its first invocations; it loads the installed packages ahead
 * (function-process.ts) and becomes the next reload's process.
 */
const SPARE_DELAY_MS = 1_500;
/** The twin's own credential is none of the functions' business. */
const NOT_FOR_FUNCTIONS = ['LOCAL_API_KEY', 'LOCAL_AUTH_TOKEN'];

type Log = (line: string) => void;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** One functions' process: invocations in, results out, in any order. */
class FunctionProcess {
  readonly child: ChildProcess;
  /** Resolves once the process can take invocations; rejects if it exits before. */
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
  private readonly pending = new Map<number, Pending>();
  private routesWaiter: Pending | undefined;
  private nextId = 0;
  private retired = false;
  private hasExited = false;

  constructor(log: Log, onUnexpectedExit: (process: FunctionProcess) => void) {
    const env = { ...process.env };
    for (const name of NOT_FOR_FUNCTIONS) delete env[name];
    this.child = fork(PROCESS_ENTRY, [], {
      execArgv: ['--import', TSX_LOADER],
      env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    let markReady = () => {};
    let failReady = (_: Error) => {};
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    // Nobody may be waiting for it (a process replaced before it was used).
    this.ready.catch(() => {});
    this.child.on('message', (message: ProcessMessage) => {
      if (message?.type === 'ready') markReady();
      else if (message?.type === 'result') this.settle(message);
      else if (message?.type === 'routes') {
        const waiter = this.routesWaiter;
        this.routesWaiter = undefined;
        if ('routes' in message) waiter?.resolve(message.routes);
        else waiter?.reject(errorFrom(message.error));
      }
      // Anything else (tsx reports the files it loads to a parent that watches) is not for us.
    });
    this.child.on('error', (error) => log(`[dev] functions' process: ${error.message}`));
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.hasExited = true;
        const why = new Error(`the functions' process exited (${signal ?? `code ${code}`})`);
        failReady(why);
        for (const { reject } of this.pending.values()) reject(why);
        this.pending.clear();
        this.routesWaiter?.reject(why);
        if (!this.retired) onUnexpectedExit(this);
        resolve();
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get gone(): boolean {
    return this.hasExited;
  }

  /** Counted at once, sent once the process is ready: a replacement waits for these too. */
  invoke(entry: string, event: unknown, context: Context): Promise<unknown> {
    const id = this.nextId++;
    const message: HostMessage = { type: 'invoke', id, entry, event, context: contextData(context) };
    const result = new Promise<unknown>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.ready.then(
      () => this.send(message),
      () => {},
    );
    return result;
  }

  /** The routes as service/ describes them in this process's (new) code. */
  routes(): Promise<RouteFunction[]> {
    const answer = new Promise<RouteFunction[]>((resolve, reject) => {
      this.routesWaiter = { resolve: resolve as (value: unknown) => void, reject };
    });
    this.ready.then(
      () => this.send({ type: 'routes' }),
      () => {},
    );
    return answer;
  }

  /** Takes no more work: exits once its invocations are answered, or is killed after `graceMs`. */
  retire(graceMs: number): void {
    if (this.retired) return;
    this.retired = true;
    this.disconnectWhenIdle();
    setTimeout(() => {
      if (!this.hasExited) this.child.kill('SIGKILL');
    }, graceMs).unref();
  }

  private send(message: HostMessage): void {
    if (this.hasExited || !this.child.connected) return;
    this.child.send(message, (error) => {
      if (!error) return;
      if (message.type === 'invoke') this.settle({ type: 'result', id: message.id, ok: false, error });
    });
  }

  private settle(message: Extract<ProcessMessage, { type: 'result' }>): void {
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    if (message.ok) waiter.resolve(message.value);
    else waiter.reject(errorFrom(message.error));
    this.disconnectWhenIdle();
  }

  private disconnectWhenIdle(): void {
    // The process exits when its channel closes (function-process.ts).
    if (this.retired && this.pending.size === 0 && this.child.connected) this.child.disconnect();
  }
}

export interface FunctionHost extends FunctionLoader {
  /** Replaces the functions' process; resolves once the new one is ready, with its pid. */
  reload(): Promise<{ pid: number | undefined; ms: number }>;
  /** The process that takes new invocations (started on the first one). */
  readonly pid: number | undefined;
}

export const startFunctionHost = ({ log = () => {} }: { log?: Log } = {}): FunctionHost => {
  let current: FunctionProcess | undefined;
  /** Started, with no project code loaded: what the next reload makes current. */
  let spare: FunctionProcess | undefined;
  let spareTimer: NodeJS.Timeout | undefined;
  const all = new Set<FunctionProcess>();
  let applyRoutes: ((routes: RouteFunction[]) => void) | undefined;
  let closed = false;

  const spawn = (): FunctionProcess => {
    const started = new FunctionProcess(log, (gone) => {
      if (spare === gone) {
        spare = undefined;
        return;
      }
      if (current === gone) current = undefined;
      if (!closed) log(`[dev] the functions' process (pid ${gone.pid}) stopped; the next invocation starts another`);
    });
    all.add(started);
    started.exited.then(() => all.delete(started));
    return started;
  };
  const spareLater = () => {
    if (spareTimer) clearTimeout(spareTimer);
    spareTimer = setTimeout(() => {
      spareTimer = undefined;
      if (!closed && !spare) spare = spawn();
    }, SPARE_DELAY_MS);
    spareTimer.unref();
  };
  const active = (): FunctionProcess => {
    if (closed) throw new Error('the functions have stopped');
    if (!current || current.gone) {
      current = spawn();
      spareLater();
    }
    return current;
  };

  return {
    async load<T extends Handler>(entry: string): Promise<T> {
      // Started now, while the twin finishes starting: the first request finds it ready.
      active();
      const handler = (event: unknown, context: Context) => active().invoke(entry, event, context);
      return handler as unknown as T;
    },
    onRoutes(apply) {
      applyRoutes = apply;
    },
    get pid() {
      return current?.pid;
    },
    async reload() {
      const started = performance.now();
      const previous = current;
      // The spare, whose packages are loaded (or loading); a fresh process when there is none.
      current = spare && !spare.gone ? spare : spawn();
      spare = undefined;
      previous?.retire(RETIRED_GRACE_MS);
      spareLater();
      const fresh = current;
      await fresh.ready;
      const ms = Math.round(performance.now() - started);
      // The routes of the new code, for the API twin; the functions meanwhile answer on the old ones.
      fresh.routes().then(
        (routes) => {
          if (current === fresh) applyRoutes?.(routes);
        },
        (error: Error) => log(`[dev] routes not reloaded (the old ones stay): ${error.message}`),
      );
      return { pid: fresh.pid, ms };
    },
    async close() {
      closed = true;
      if (spareTimer) clearTimeout(spareTimer);
      current = undefined;
      spare = undefined;
      const processes = [...all];
      for (const process of processes) process.retire(CLOSE_GRACE_MS);
      await Promise.all(processes.map((process) => process.exited));
    },
  };
};
