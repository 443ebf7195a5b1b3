// Generated from shared/api/operations.ts by `npm run generate`: do not edit.
// The client needs only the paths at run time; its types come from the same table.

export const OPERATION_PATHS = {
  setConfig: '/v2/notifications/config/set',
  getConfig: '/v2/notifications/config/get',
  resolveConfig: '/v2/notifications/config/resolve',
  resetConfig: '/v2/notifications/config/reset',
  migrateDocument: '/v2/organizations/documents/migrate',
  getMigrationStatus: '/v2/organizations/documents/migrate/status',
} as const;
