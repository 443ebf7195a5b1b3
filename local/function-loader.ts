import { basename } from 'node:path';
import type { Context } from 'aws-lambda';
import { perInvocation } from './invoke-store.js';

/**
 * How the twin gets the functions' handlers: imported into its own process (`npm start`), or
 * run in a process that is replaced when their code changes (`npm run dev`,
 * local/reload/function-host.ts). The functions' code is the same either way.
 */

export type Handler = (event: never, context: Context) => Promise<unknown>;

/** An HTTP route's function, as the API twin needs it: free of the route's schemas. */
export interface RouteFunction {
  path: string;
  operationId: string;
  entry: string;
  timeoutSeconds: number;
  memoryMb: number;
}

export interface FunctionLoader {
  /** The handler exported by `entry` (e.g. functions/set-config.ts), invoked as Lambda invokes it. */
  load<T extends Handler>(entry: string): Promise<T>;
  /** Called with the routes each time the functions' code is loaded again (a loader that reloads it). */
  onRoutes?(apply: (routes: RouteFunction[]) => void): void;
  /** Stops what the loader runs, once nothing invokes a function any more. */
  close?(): Promise<void>;
}

/** `functions/set-config.ts` -> `#functions/set-config.js` (resolves under tsx and Jest alike). */
export const specifierOf = (entry: string) => `#functions/${basename(entry, '.ts')}.js`;

/** A function's handler, loaded as Lambda loads it and invoked as Lambda invokes it (local/invoke-store.ts). */
export const importHandler = async <T extends Handler>(entry: string): Promise<T> => {
  const module = (await import(specifierOf(entry))) as { handler?: T };
  if (typeof module.handler !== 'function') throw new Error(`${entry} does not export a handler function`);
  return perInvocation(module.handler) as T;
};

export const IN_PROCESS: FunctionLoader = { load: importHandler };
