import * as z from 'zod/mini';
import { CHANNELS, type Channel, deliverySetting } from '#shared/api/channels.js';
import { described } from '#shared/api/describe.js';

/**
 * The `result.data` of the config routes: the single source of their response types (the
 * domain functions return `z.output` of these) and of the OpenAPI response schemas. On zod/mini
 * like the request schemas: the functions' bundles carry them through the operations table.
 */

const byChannel = <S extends z.core.$ZodType>(schema: S) =>
  z.strictObject(Object.fromEntries(CHANNELS.map((channel) => [channel, schema])) as Record<Channel, S>);

const id = z.string();
export const scope = z.enum(['document', 'organization']);
export const configSource = z.enum(['document', 'organization', 'default']);

/** The per-user entry of config/set and config/reset. */
export const userWriteResult = z.strictObject({
  success: z.boolean(),
  userId: id,
  documentId: described(z.nullable(z.string()), 'The (first) document, or null for the organization-level entry.'),
  documentIds: z.optional(described(z.array(z.string()), 'Every document, when several were named.')),
  scope,
  message: z.string(),
});
export type UserWriteResult = z.output<typeof userWriteResult>;

const userWriteMap = () =>
  described(z.record(z.string(), userWriteResult), 'One entry per distinct user id, keyed by that id.');

export const setConfigResult = userWriteMap();
export type SetConfigResult = z.output<typeof setConfigResult>;

export const resetConfigResult = userWriteMap();
export type ResetConfigResult = z.output<typeof resetConfigResult>;

export const storedChannelConfig = described(
  z.strictObject({
    inbox: z.optional(deliverySetting),
    email: z.optional(deliverySetting),
    slack: z.optional(deliverySetting),
  }),
  'What is stored for the entry; channels never set are absent.',
);

const effective = () =>
  described(
    byChannel(deliverySetting),
    'Every channel resolved: document entry, then organization entry, then deployment default.',
  );
const source = () => described(byChannel(configSource), 'Which layer gave each effective channel.');

export const configView = z.strictObject({
  userId: id,
  documentId: z.nullable(z.string()),
  scope,
  config: storedChannelConfig,
  effective: effective(),
  source: source(),
});
export type ConfigView = z.output<typeof configView>;

export const getConfigResult = described(
  z.array(configView),
  'One item per requested document, or one organization-level item.',
);
export type GetConfigResult = z.output<typeof getConfigResult>;

export const resolvedUser = z.strictObject({
  userId: id,
  effective: effective(),
  source: source(),
  deliver: z.optional(
    described(byChannel(z.boolean()), 'With an activity: whether each channel delivers it to this user.'),
  ),
});
export type ResolvedUser = z.output<typeof resolvedUser>;

export const resolveConfigResult = z.strictObject({
  documentId: id,
  users: described(z.record(z.string(), resolvedUser), 'One entry per distinct requested user, keyed by user id.'),
  recipients: z.optional(
    described(
      byChannel(z.array(z.string())),
      'With an activity: the delivering user ids per channel, in request order.',
    ),
  ),
});
export type ResolveConfigResult = z.output<typeof resolveConfigResult>;
