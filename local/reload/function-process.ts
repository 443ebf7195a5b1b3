import { fileURLToPath } from 'node:url';
import { type Handler, importHandler } from '../function-loader.js';
import { useInvokeStore } from '../invoke-store.js';
import { contextFrom, errorData, type HostMessage, type ProcessMessage } from './messages.js';
import { vendorModules } from './vendor-modules.js';

/**
 * The functions' process under `npm run dev` (forked by function-host.ts): it imports each
 * handler on its first invocation, as a Lambda environment does at a cold start, and runs the
 * invocations the twin sends. A code change replaces the whole process, so every module of the
 * project is loaded fresh, with nothing left of the old code; only installed packages, which a
 * save does not change, may be loaded ahead.
 */

/** To the twin, if it is still there: gone (a stop while this process starts), there is no one to tell. */
const send = (message: ProcessMessage) => {
  if (process.connected) process.send?.(message, undefined, {}, () => {});
};
/** The repository (local/reload/ is two levels down), found without importing any of its code. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

useInvokeStore();
const handlers = new Map<string, Promise<Handler>>();
const handlerOf = (entry: string): Promise<Handler> => {
  let handler = handlers.get(entry);
  if (!handler) {
    handler = importHandler(entry);
    handlers.set(entry, handler);
  }
  return handler;
};

const invoke = async ({ id, entry, event, context }: Extract<HostMessage, { type: 'invoke' }>) => {
  try {
    const handler = await handlerOf(entry);
    send({ type: 'result', id, ok: true, value: await handler(event as never, contextFrom(context)) });
  } catch (error) {
    send({ type: 'result', id, ok: false, error: errorData(error) });
  }
};

const routes = async () => {
  try {
    // Imported here, fresh in each process: service/ may have changed (a route added or moved).
    const { routeFunctions } = await import('../route-functions.js');
    send({ type: 'routes', routes: routeFunctions() });
  } catch (error) {
    send({ type: 'routes', error: errorData(error) });
  }
};

process.on('message', (message: HostMessage) => {
  if (message?.type === 'invoke') void invoke(message);
  else if (message?.type === 'routes') void routes();
});
// Ctrl+C reaches every process of the terminal's group: stopping is the twin's to decide, since
// its queues may still deliver to the functions while they drain. It disconnects when done, or
// dies, and this process goes with it.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
process.on('disconnect', () => process.exit(0));
// Gone while this process was loading, before there was a handler to hear it.
if (!process.connected) process.exit(0);
// A function's stray rejection is logged, as Lambda's runtime logs it, and the process carries on.
process.on('unhandledRejection', (reason) => console.error('Unhandled rejection in a function:', reason));
send({ type: 'ready' });

// Then the installed packages the functions import, one after the other: ready ahead of the
// first invocation when this process is a spare, and shared with it otherwise.
const preload = async () => {
  for (const specifier of await vendorModules(ROOT)) {
    await import(specifier).catch(() => {
      // One this process cannot load is loaded, and reported, by the function that needs it.
    });
  }
};
void preload();
