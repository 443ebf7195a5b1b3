import * as z from 'zod/mini';
import { CHANNELS, type Channel, deliverySetting } from '#shared/api/channels.js';
import { once } from '#shared/platform/once.js';

/**
 * The result pieces the config routes share (each route's own result schema is in routes/):
 * the single source of their response types (the domain functions return `z.output` of these)
 * and of the OpenAPI response schemas, whose descriptions live with the tools (tools/openapi/).
 * Each is built on first use (once.ts): only the tools and the tests build them.
 */

export const byChannel = <S extends z.core.$ZodType>(schema: S) =>
  z.strictObject(Object.fromEntries(CHANNELS.map((channel) => [channel, schema])) as Record<Channel, S>);

export const scope = once(() => z.enum(['document', 'organization']));
/** Where a channel's value comes from, in the order that decides (resolution.ts). */
export const CONFIG_SOURCES = [
  'locked',
  'document:category',
  'document',
  'organization:category',
  'organization',
  'policy:category',
  'policy',
  'default',
] as const;
export const configSource = once(() => z.enum(CONFIG_SOURCES));
export type ConfigSource = (typeof CONFIG_SOURCES)[number];

/** The per-user entry of config/set and config/reset. */
export const userWriteResult = once(() =>
  z.strictObject({
    success: z.boolean(),
    userId: z.string(),
    documentId: z.nullable(z.string()),
    documentIds: z.optional(z.array(z.string())),
    scope: scope(),
    message: z.string(),
  }),
);
export type UserWriteResult = z.output<ReturnType<typeof userWriteResult>>;

/** config/set's and config/reset's answer: one entry per distinct user id, keyed by that id. */
export const userWriteMap = () => z.record(z.string(), userWriteResult());

/** What is stored for an entry: only the channels that were ever set. */
export const storedChannelConfig = once(() =>
  z.strictObject({
    inbox: z.optional(deliverySetting),
    email: z.optional(deliverySetting),
    slack: z.optional(deliverySetting),
  }),
);

/** The stored category layers of an entry, keyed by category id. */
export const storedCategories = once(() => z.record(z.string(), storedChannelConfig()));

/** config/get's `explain`: per channel, every layer that has a value, the winner first. */
export const trace = once(() => byChannel(z.array(z.strictObject({ source: configSource(), value: deliverySetting }))));

/** Every channel resolved, and the layer that gave each. */
export const resolution = () => ({ effective: byChannel(deliverySetting), source: byChannel(configSource()) });
