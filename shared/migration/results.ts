import * as z from 'zod/mini';
import { described } from '#shared/api/describe.js';
import { MIGRATION_STATUSES } from './model.js';

/** The `result.data` of the migration routes: the single source of their response types. */

export const migrateResult = z.strictObject({
  migrationId: described(z.string(), 'Unique, sortable by creation time.'),
});
export type MigrateResult = z.output<typeof migrateResult>;

export const migrationState = z.enum(MIGRATION_STATUSES);

const timestamp = () => described(z.iso.datetime(), 'ISO-8601 UTC time.');
const count = (description: string) => described(z.int().check(z.nonnegative()), description);

export const migrationStatusResult = z.strictObject({
  migrationId: z.string(),
  organizationId: z.string(),
  documentId: z.string(),
  newDocumentId: z.string(),
  status: migrationState,
  moved: count('Source entries written to the target so far.'),
  skipped: count('Source entries left because the target entry was newer.'),
  createdAt: timestamp(),
  updatedAt: timestamp(),
  completedAt: z.optional(timestamp()),
  error: z.optional(described(z.string(), 'Why the migration failed (status failed).')),
});
export type MigrationStatusResult = z.output<typeof migrationStatusResult>;
