import { type FunctionSpec, memoryOf, NOT_FOUND_FUNCTION, timeoutSecondsOf } from '#service/functions.js';
import { PUBLIC_ROUTES, publicFunctionSpecOf } from '#service/routes.js';
import type { FunctionLoader, RouteFunction } from './function-loader.js';
import { LOCAL_FUNCTION_PREFIX } from './lambda-context.js';
import { routeFunctions } from './route-functions.js';
import type { ApiHandler, LocalFunction, PrefixRoute } from './server.js';

export interface ApiFunctions {
  /** The HTTP functions by route path; the API server reads this map on every request. */
  routes: Map<string, LocalFunction>;
  /** The pages of the links in emails: every path under their prefix, as `ANY /u/{proxy+}` on AWS. */
  prefixRoutes: PrefixRoute[];
  /** What answers a path no route has. */
  fallback: LocalFunction;
}

/** The API's functions, loaded with their deployed timeout and memory (service/functions.ts). */
export const loadApiFunctions = async (
  functions: FunctionLoader,
  log: (line: string) => void,
): Promise<ApiFunctions> => {
  const localFunction = async (
    name: string,
    spec: Pick<FunctionSpec, 'entry' | 'timeoutSeconds' | 'memoryMb'>,
  ): Promise<LocalFunction> => ({
    name: `${LOCAL_FUNCTION_PREFIX}-${name}`,
    handler: await functions.load<ApiHandler>(spec.entry),
    timeoutMs: timeoutSecondsOf(spec) * 1000,
    memoryMb: memoryOf(spec),
  });
  const routeMap = async (list: RouteFunction[]) => {
    const map = new Map<string, LocalFunction>();
    for (const route of list) map.set(route.path, await localFunction(route.operationId, route));
    return map;
  };
  const routes = await routeMap(routeFunctions());
  // A loader that reloads the code tells the routes it found there: an added or moved route
  // answers without a restart.
  functions.onRoutes?.((list) => {
    routeMap(list).then(
      (fresh) => {
        routes.clear();
        for (const [path, fn] of fresh) routes.set(path, fn);
      },
      (error: Error) => log(`[dev] routes not updated: ${error.message}`),
    );
  });
  const prefixRoutes: PrefixRoute[] = [];
  for (const route of PUBLIC_ROUTES) {
    prefixRoutes.push({ prefix: route.prefix, fn: await localFunction(route.id, publicFunctionSpecOf(route)) });
  }
  const fallback = await localFunction('NotFound', NOT_FOUND_FUNCTION);
  return { routes, prefixRoutes, fallback };
};
