import * as z from 'zod/mini';
import { MIGRATION_STATUSES } from '#shared/migration/model.js';
import { CHANNELS, type Channel, deliverySetting } from '#shared/preferences/model.js';

/**
 * The `result.data` of every route: the single source of the response types (the domain
 * functions return `z.output` of these) and of the OpenAPI response schemas. zod's mini API:
 * the functions' bundles carry these schemas through the operations table.
 */

const described = <S extends z.core.$ZodType>(schema: S, description: string): S => {
  z.globalRegistry.add(schema, { description });
  return schema;
};

const byChannel = <S extends z.core.$ZodType>(schema: S) =>
  z.strictObject(Object.fromEntries(CHANNELS.map((channel) => [channel, schema])) as Record<Channel, S>);

const id = z.string();
export const scope = z.enum(['document', 'organization']);

export const userSetResult = z.strictObject({
  success: z.boolean(),
  userId: id,
  documentId: described(z.nullable(z.string()), 'The (first) document, or null for the organization-level entry.'),
  documentIds: z.optional(described(z.array(z.string()), 'Every document, when several were named.')),
  scope,
  message: z.string(),
});
export type UserSetResult = z.output<typeof userSetResult>;

export const setConfigResult = described(
  z.record(z.string(), userSetResult),
  'One entry per distinct user id, keyed by that id.',
);

export const storedChannelConfig = described(
  z.strictObject({
    inbox: z.optional(deliverySetting),
    email: z.optional(deliverySetting),
    slack: z.optional(deliverySetting),
  }),
  'What is stored for the entry; channels never set are absent.',
);

export const configSource = z.enum(['document', 'organization', 'default']);

export const configView = z.strictObject({
  userId: id,
  documentId: z.nullable(z.string()),
  scope,
  config: storedChannelConfig,
  effective: described(
    byChannel(deliverySetting),
    'Every channel resolved: document entry, then organization entry, then deployment default.',
  ),
  source: described(byChannel(configSource), 'Which layer gave each effective channel.'),
});
export type ConfigViewResult = z.output<typeof configView>;

export const getConfigResult = described(
  z.array(configView),
  'One item per requested document, or one organization-level item.',
);

export const migrateResult = z.strictObject({
  migrationId: described(z.string(), 'Unique, sortable by creation time.'),
});

export const migrationState = z.enum(MIGRATION_STATUSES);

const timestamp = () => described(z.iso.datetime(), 'ISO-8601 UTC time.');
const count = (description: string) => described(z.int().check(z.nonnegative()), description);

export const migrationStatusResult = z.strictObject({
  migrationId: id,
  organizationId: id,
  documentId: id,
  newDocumentId: id,
  status: migrationState,
  moved: count('Source entries written to the target so far.'),
  skipped: count('Source entries left because the target entry was newer.'),
  createdAt: timestamp(),
  updatedAt: timestamp(),
  completedAt: z.optional(timestamp()),
  error: z.optional(described(z.string(), 'Why the migration failed (status failed).')),
});

export type SetConfigResult = z.output<typeof setConfigResult>;
export type GetConfigResult = z.output<typeof getConfigResult>;
export type MigrateResult = z.output<typeof migrateResult>;
export type MigrationStatusResult = z.output<typeof migrationStatusResult>;
