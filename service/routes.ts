import { getBrandingRoute } from '#shared/branding/routes/get-branding.js';
import { setBrandingRoute } from '#shared/branding/routes/set-branding.js';
import { eraseUserRoute } from '#shared/erasure/routes/erase-user.js';
import { getErasureStatusRoute } from '#shared/erasure/routes/get-erasure-status.js';
import { createExportRoute } from '#shared/exports/routes/create-export.js';
import { getExportStatusRoute } from '#shared/exports/routes/get-export-status.js';
import { getConfigHistoryRoute } from '#shared/history/routes/get-config-history.js';
import { createImportRoute } from '#shared/imports/routes/create-import.js';
import { getImportStatusRoute } from '#shared/imports/routes/get-import-status.js';
import { createLinksRoute } from '#shared/links/routes/create-links.js';
import { preferencePageRoute } from '#shared/links/routes/preference-page.js';
import { revokeLinksRoute } from '#shared/links/routes/revoke-links.js';
import { unsubscribeRoute } from '#shared/links/routes/unsubscribe.js';
import { getMigrationStatusRoute } from '#shared/migration/routes/get-migration-status.js';
import { migrateDocumentRoute } from '#shared/migration/routes/migrate-document.js';
import { exportUserRoute } from '#shared/people/routes/export-user.js';
import type { PublicRoute, Route } from '#shared/platform/route.js';
import { getPolicyRoute } from '#shared/policy/routes/get-policy.js';
import { setPolicyRoute } from '#shared/policy/routes/set-policy.js';
import { getConfigRoute } from '#shared/preferences/routes/get-config.js';
import { getScheduleRoute } from '#shared/preferences/routes/get-schedule.js';
import { resetConfigRoute } from '#shared/preferences/routes/reset-config.js';
import { resolveConfigRoute } from '#shared/preferences/routes/resolve-config.js';
import { setConfigRoute } from '#shared/preferences/routes/set-config.js';
import { setScheduleRoute } from '#shared/preferences/routes/set-schedule.js';
import { getWebhookDeliveriesRoute } from '#shared/webhooks/routes/get-webhook-deliveries.js';
import { getWebhooksRoute } from '#shared/webhooks/routes/get-webhooks.js';
import { rotateWebhookSecretRoute } from '#shared/webhooks/routes/rotate-webhook-secret.js';
import { setWebhooksRoute } from '#shared/webhooks/routes/set-webhooks.js';
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
  setBrandingRoute,
  getBrandingRoute,
  migrateDocumentRoute,
  getMigrationStatusRoute,
  eraseUserRoute,
  getErasureStatusRoute,
  exportUserRoute,
  createExportRoute,
  getExportStatusRoute,
  createImportRoute,
  getImportStatusRoute,
  createLinksRoute,
  revokeLinksRoute,
  setWebhooksRoute,
  getWebhooksRoute,
  rotateWebhookSecretRoute,
  getWebhookDeliveriesRoute,
] as const;

/**
 * The public routes: the pages a link in an email opens (shared/links/), outside the API's
 * envelope and without an API key. Every path under a route's prefix reaches its function.
 */
export const PUBLIC_ROUTES = [unsubscribeRoute, preferencePageRoute] as const;

export type PublicRouteId = (typeof PUBLIC_ROUTES)[number]['id'];

export type RouteId = (typeof ROUTES)[number]['operationId'];
export type RouteById<Id extends RouteId> = Extract<(typeof ROUTES)[number], { operationId: Id }>;

const kebab = (id: string) => id.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/** The handler file of a route: `setConfig` -> `functions/set-config.ts`. */
export const handlerEntryOf = (route: Pick<Route, 'operationId'>): string => `functions/${kebab(route.operationId)}.ts`;

/** The full function spec of a route: its own settings plus what every HTTP function needs. */
export const functionSpecOf = (route: Pick<Route, 'operationId' | 'path' | 'function'>): FunctionSpec => ({
  ...route.function,
  entry: handlerEntryOf(route),
  description: `POST ${route.path}`,
  tables: { ...route.function.tables, ...HTTP_FUNCTION_BASE.tables },
  settings: [...HTTP_FUNCTION_BASE.settings, ...(route.function.settings ?? [])],
});

/** The function spec of a public route: its own access only (no credential, no rate-limit bucket). */
export const publicFunctionSpecOf = (route: PublicRoute): FunctionSpec => ({
  ...route.function,
  entry: handlerEntryOf({ operationId: route.id }),
  description: `${route.methods.join('|')} ${route.prefix}{token}: ${route.summary}`,
});
