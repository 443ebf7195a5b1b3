import type { z } from 'zod';
import { ROUTES, type RouteById, type RouteId } from '#service/routes.js';
import type { Route } from '#shared/platform/route.js';
import { getBrandingDocs, setBrandingDocs } from './operation-docs/branding.js';
import type { OperationDocs } from './operation-docs/common.js';
import { eraseUserDocs, getErasureStatusDocs } from './operation-docs/erasure.js';
import { createExportDocs, getExportStatusDocs } from './operation-docs/exports.js';
import { getConfigHistoryDocs } from './operation-docs/history.js';
import { createImportDocs, getImportStatusDocs } from './operation-docs/imports.js';
import { createLinksDocs, revokeLinksDocs } from './operation-docs/links.js';
import { getMigrationStatusDocs, migrateDocumentDocs } from './operation-docs/migration.js';
import { exportUserDocs } from './operation-docs/people.js';
import { getPolicyDocs, setPolicyDocs } from './operation-docs/policy.js';
import { getConfigDocs, resetConfigDocs, resolveConfigDocs, setConfigDocs } from './operation-docs/preferences.js';
import { getScheduleDocs, setScheduleDocs } from './operation-docs/schedules.js';
import {
  getWebhookDeliveriesDocs,
  getWebhooksDocs,
  rotateWebhookSecretDocs,
  setWebhooksDocs,
} from './operation-docs/webhooks.js';

export type { ErrorCase, NamedExample, OperationDocs } from './operation-docs/common.js';
export { COMMON_ERRORS } from './operation-docs/common.js';

/** The documentation of every route, by operationId: a route without its documentation does not compile. */
const OPERATION_DOCS: { [Id in RouteId]: OperationDocs<RouteById<Id>> } = {
  setConfig: setConfigDocs,
  getConfig: getConfigDocs,
  resolveConfig: resolveConfigDocs,
  resetConfig: resetConfigDocs,
  getConfigHistory: getConfigHistoryDocs,
  setSchedule: setScheduleDocs,
  getSchedule: getScheduleDocs,
  setPolicy: setPolicyDocs,
  getPolicy: getPolicyDocs,
  setBranding: setBrandingDocs,
  getBranding: getBrandingDocs,
  migrateDocument: migrateDocumentDocs,
  getMigrationStatus: getMigrationStatusDocs,
  eraseUser: eraseUserDocs,
  getErasureStatus: getErasureStatusDocs,
  exportUser: exportUserDocs,
  createExport: createExportDocs,
  getExportStatus: getExportStatusDocs,
  createImport: createImportDocs,
  getImportStatus: getImportStatusDocs,
  createLinks: createLinksDocs,
  revokeLinks: revokeLinksDocs,
  setWebhooks: setWebhooksDocs,
  getWebhooks: getWebhooksDocs,
  rotateWebhookSecret: rotateWebhookSecretDocs,
  getWebhookDeliveries: getWebhookDeliveriesDocs,
};

/**
 * A route with its documentation and its result schema built (a route builds it on demand):
 * what the OpenAPI document, the docs page, the client and the smoke test read. Distributes over
 * a union of routes, so that checking an operation's id still narrows its request and result.
 */
export type Operation<R extends Route = Route> = R extends Route
  ? Omit<R, 'result'> & { result: ReturnType<R['result']> } & OperationDocs<R>
  : never;
export type OperationId = RouteId;

/**
 * Every operation, in the order of the routes (service/routes.ts): the full table, which only the
 * tools (and the tests) assemble; no function bundles it.
 */
export const OPERATIONS = ROUTES.map((route) => ({
  ...route,
  result: route.result(),
  ...OPERATION_DOCS[route.operationId],
})) as readonly Operation<(typeof ROUTES)[number]>[];

/** `data` a client sends to an operation. */
export type OperationInput<Id extends OperationId> = z.input<RouteById<Id>['request']>;
/** `result.data` an operation answers. */
export type OperationResult<Id extends OperationId> = z.output<ReturnType<RouteById<Id>['result']>>;

export const operationById = <Id extends OperationId>(id: Id): Operation<RouteById<Id>> =>
  OPERATIONS.find((operation) => operation.operationId === id) as unknown as Operation<RouteById<Id>>;

export const operationForPath = (path: string): Operation | undefined =>
  OPERATIONS.find((operation) => operation.path === path);
