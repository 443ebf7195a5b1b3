import { z } from 'zod';
import { MIGRATION_STATUSES, type MigrationView } from '#shared/migration/model.js';
import type { startMigration } from '#shared/migration/start.js';
import { CHANNELS, type Channel, deliverySetting } from '#shared/preferences/model.js';
import type { ConfigView, UserSetResult } from '#shared/preferences/service.js';

/**
 * The `result.data` of every route (contract sections 4 and 5). Request schemas are not here:
 * they are the ones the handlers validate with (shared/preferences/schemas.ts, shared/migration/schemas.ts).
 */

const byChannel = <S extends z.core.$ZodType>(schema: S) =>
  z.strictObject(Object.fromEntries(CHANNELS.map((channel) => [channel, schema])) as Record<Channel, S>);

const id = z.string();
export const scope = z.enum(['document', 'organization']);

export const userSetResult = z.strictObject({
  success: z.boolean(),
  userId: id,
  documentId: id.nullable().meta({ description: 'The (first) document, or null for the organization-level entry.' }),
  documentIds: z.array(id).optional().meta({ description: 'Every document, when several were named.' }),
  scope,
  message: z.string(),
});

export const setConfigResult = z
  .record(id, userSetResult)
  .meta({ description: 'One entry per distinct user id, keyed by that id.' });

export const storedChannelConfig = z
  .strictObject({
    inbox: z.optional(deliverySetting),
    email: z.optional(deliverySetting),
    slack: z.optional(deliverySetting),
  })
  .meta({ description: 'What is stored for the entry; channels never set are absent.' });

export const configSource = z.enum(['document', 'organization', 'default']);

export const configView = z.strictObject({
  userId: id,
  documentId: id.nullable(),
  scope,
  config: storedChannelConfig,
  effective: byChannel(deliverySetting).meta({
    description: 'Every channel resolved: document entry, then organization entry, then deployment default.',
  }),
  source: byChannel(configSource).meta({ description: 'Which layer gave each effective channel.' }),
});

export const getConfigResult = z
  .array(configView)
  .meta({ description: 'One item per requested document, or one organization-level item.' });

export const migrateResult = z.strictObject({
  migrationId: id.meta({ description: 'Unique, sortable by creation time.' }),
});

export const migrationState = z.enum(MIGRATION_STATUSES);

const timestamp = z.iso.datetime().meta({ description: 'ISO-8601 UTC time.' });
const count = z.number().int().nonnegative();

export const migrationStatusResult = z.strictObject({
  migrationId: id,
  organizationId: id,
  documentId: id,
  newDocumentId: id,
  status: migrationState,
  moved: count.meta({ description: 'Source entries written to the target so far.' }),
  skipped: count.meta({ description: 'Source entries left because the target entry was newer.' }),
  createdAt: timestamp,
  updatedAt: timestamp,
  completedAt: timestamp.optional(),
  error: z.string().optional().meta({ description: 'Why the migration failed (status failed).' }),
});

export type SetConfigResult = z.output<typeof setConfigResult>;
export type GetConfigResult = z.output<typeof getConfigResult>;
export type MigrateResult = z.output<typeof migrateResult>;
export type MigrationStatusResult = z.output<typeof migrationStatusResult>;

// Compile-time proof that what the domain returns is exactly what these schemas describe.
type MutuallyAssignable<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
export type DomainTypesMatchResponseSchemas = [
  Assert<MutuallyAssignable<UserSetResult, z.output<typeof userSetResult>>>,
  Assert<MutuallyAssignable<ConfigView, z.output<typeof configView>>>,
  Assert<MutuallyAssignable<MigrationView, z.output<typeof migrationStatusResult>>>,
  Assert<MutuallyAssignable<Awaited<ReturnType<typeof startMigration>>, z.output<typeof migrateResult>>>,
];
