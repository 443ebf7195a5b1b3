/**
 * The API's operations: path, handler entry and the name of its function. The CDK stack
 * and the local server both build their routes from this list, so they cannot drift.
 */
export const ROUTES = [
  { id: 'ConfigSet', path: '/v2/notifications/config/set', entry: 'functions/config-set.ts' },
  { id: 'ConfigGet', path: '/v2/notifications/config/get', entry: 'functions/config-get.ts' },
  { id: 'Migrate', path: '/v2/organizations/documents/migrate', entry: 'functions/migrate.ts' },
  { id: 'MigrateStatus', path: '/v2/organizations/documents/migrate/status', entry: 'functions/migrate-status.ts' },
] as const;

export type RouteId = (typeof ROUTES)[number]['id'];

/** Answers every other path with NOT_FOUND in the envelope. */
export const NOT_FOUND_ENTRY = 'functions/not-found.ts';

/** The SQS consumer that performs migrations. */
export const MIGRATION_CONSUMER_ENTRY = 'functions/migration-consumer.ts';
