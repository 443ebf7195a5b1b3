import { memoryOf, timeoutSecondsOf } from '#service/functions.js';
import { functionSpecOf, ROUTES } from '#service/routes.js';
import type { RouteFunction } from './function-loader.js';

/** Every route with its function's entry, timeout and memory, as service/ describes them. */
export const routeFunctions = (): RouteFunction[] =>
  ROUTES.map((route) => {
    const spec = functionSpecOf(route);
    return {
      path: route.path,
      operationId: route.operationId,
      entry: spec.entry,
      timeoutSeconds: timeoutSecondsOf(spec),
      memoryMb: memoryOf(spec),
    };
  });
