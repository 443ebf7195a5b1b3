import { eraseUserRoute } from '#shared/erasure/routes/erase-user.js';
import { getErasureStatusRoute } from '#shared/erasure/routes/get-erasure-status.js';
import { getConfigHistoryRoute } from '#shared/history/routes/get-config-history.js';
import { getMigrationStatusRoute } from '#shared/migration/routes/get-migration-status.js';
import { migrateDocumentRoute } from '#shared/migration/routes/migrate-document.js';
import type { Route } from '#shared/platform/route.js';
import { getPolicyRoute } from '#shared/policy/routes/get-policy.js';
import { setPolicyRoute } from '#shared/policy/routes/set-policy.js';
import { getConfigRoute } from '#shared/preferences/routes/get-config.js';
import { getScheduleRoute } from '#shared/preferences/routes/get-schedule.js';
import { resetConfigRoute } from '#shared/preferences/routes/reset-config.js';
import { resolveConfigRoute } from '#shared/preferences/routes/resolve-config.js';
import { setConfigRoute } from '#shared/preferences/routes/set-config.js';
import { setScheduleRoute } from '#shared/preferences/routes/set-schedule.js';
import { type FunctionSpec, HTTP_FUNCTION_BASE } from './functions.js';

/**
 * Every HTTP route of the service, in the order the documentation lists them. Each domain owns
 * its routes (shared/<domain>/routes/); this list is what the stack, the local twin and the
 * tools assemble from them. A handler imports its own route only, so that its function bundles
 * nothing of the others.
 */
export const ROUTES = [
  setConfigRoute,
  getConfigRoute,
  setScheduleRoute,
  getScheduleRoute,
  resolveConfigRoute,
  resetConfigRoute,
  getConfigHistoryRoute,
  setPolicyRoute,
  getPolicyRoute,
  migrateDocumentRoute,
  getMigrationStatusRoute,
  eraseUserRoute,
  getErasureStatusRoute,
] as const;

export type RouteId = (typeof ROUTES)[number]['operationId'];
export type RouteById<Id extends RouteId> = Extract<(typeof ROUTES)[number], { operationId: Id }>;

const kebab = (id: string) => id.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/** The handler file of a route: `setConfig` -> `functions/set-config.ts`. */
export const handlerEntryOf = (route: Pick<Route, 'operationId'>): string => `functions/${kebab(route.operationId)}.ts`;

/** The full function spec of a route: its own settings plus what every HTTP function needs. */
export const functionSpecOf = (route: Route): FunctionSpec => ({
  ...route.function,
  entry: handlerEntryOf(route),
  description: `POST ${route.path}`,
  tables: { ...route.function.tables, ...HTTP_FUNCTION_BASE.tables },
  settings: [...HTTP_FUNCTION_BASE.settings, ...(route.function.settings ?? [])],
});

export const routeById = <Id extends RouteId>(id: Id): RouteById<Id> =>
  ROUTES.find((route) => route.operationId === id) as RouteById<Id>;

export const routeForPath = (path: string): Route | undefined =>
  (ROUTES as readonly Route[]).find((route) => route.path === path);
