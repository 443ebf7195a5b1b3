import * as z from 'zod/mini';
import { CHANNELS, type Channel, deliverySetting } from './model.js';

// The `result.data` of config/resolve and config/reset, on zod/mini like the request schemas.

const byChannel = <S extends z.core.$ZodType>(schema: S) =>
  z.strictObject(Object.fromEntries(CHANNELS.map((channel) => [channel, schema])) as Record<Channel, S>);

const id = z.string();

export const configSource = z.enum(['document', 'organization', 'default']);

export const resolvedUser = z.strictObject({
  userId: id,
  effective: byChannel(deliverySetting),
  source: byChannel(configSource),
  /** With an activity: whether each channel delivers it to this user. */
  deliver: z.optional(byChannel(z.boolean())),
});

export const resolveConfigResult = z.strictObject({
  documentId: id,
  /** One entry per distinct requested user, keyed by user id. */
  users: z.record(id, resolvedUser),
  /** With an activity: the delivering user ids per channel, in request order. */
  recipients: z.optional(byChannel(z.array(id))),
});
export type ResolveConfigResult = z.output<typeof resolveConfigResult>;
export type ResolvedUser = z.output<typeof resolvedUser>;

/** The per-user entry of config/set and config/reset. */
export const userWriteResult = z.strictObject({
  success: z.boolean(),
  userId: id,
  documentId: z.nullable(id),
  documentIds: z.optional(z.array(id)),
  scope: z.enum(['document', 'organization']),
  message: z.string(),
});

export const resetConfigResult = z.record(id, userWriteResult);
export type ResetConfigResult = z.output<typeof resetConfigResult>;
