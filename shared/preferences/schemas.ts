import * as z from 'zod/mini';
import { CHANNELS, type Channel, deliverySetting } from '#shared/api/channels.js';
import { identifier, MAX_DOCUMENT_IDS, MAX_USER_IDS } from '#shared/api/identifiers.js';

// Request schemas run in every function, so they use zod's tree-shakable mini API (the
// classic API would add some 440 KiB to each bundle); the bench's bundle figures show it.

const channelValue = z.optional(deliverySetting);

export const channelConfig = z
  .strictObject(
    { inbox: channelValue, email: channelValue, slack: channelValue },
    { error: (issue) => (issue.code === 'invalid_type' ? 'config must be an object' : undefined) },
  )
  .check(
    z.refine((config) => CHANNELS.some((channel) => config[channel] !== undefined), {
      error: `config must set at least one of ${CHANNELS.join(', ')}`,
    }),
  );

export const documentIds = z
  .array(identifier('documentId'), { error: 'documentIds must be an array of strings' })
  .check(
    z.minLength(1, { error: `documentIds must have between 1 and ${MAX_DOCUMENT_IDS} entries when present` }),
    z.maxLength(MAX_DOCUMENT_IDS, { error: `documentIds must have at most ${MAX_DOCUMENT_IDS} entries` }),
  );

export const userIds = z
  .array(identifier('userId'), { error: 'userIds must be an array of strings' })
  .check(
    z.minLength(1, { error: 'userIds must have at least 1 entry' }),
    z.maxLength(MAX_USER_IDS, { error: `userIds must have at most ${MAX_USER_IDS} entries` }),
  );

export const setConfigRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userIds,
  documentIds: z.optional(documentIds),
  config: channelConfig,
});
export type SetConfigRequest = z.infer<typeof setConfigRequest>;

export const getConfigRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userId: identifier('userId'),
  documentIds: z.optional(documentIds),
});
export type GetConfigRequest = z.infer<typeof getConfigRequest>;

/** What a notification is about: the users it directly involves (mentioned, replied to). */
export const activity = z.strictObject(
  {
    involvedUserIds: z.optional(
      z
        .array(identifier('involvedUserId'), { error: 'activity.involvedUserIds must be an array of strings' })
        .check(
          z.maxLength(MAX_USER_IDS, { error: `activity.involvedUserIds must have at most ${MAX_USER_IDS} entries` }),
        ),
    ),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'activity must be an object' : undefined) },
);

export const resolveConfigRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  documentId: identifier('documentId'),
  userIds,
  activity: z.optional(activity),
});
export type ResolveConfigRequest = z.infer<typeof resolveConfigRequest>;

const ONE_OF_CHANNELS = `one of ${CHANNELS.join(', ')}`;

export const channels = z
  .array(z.enum(CHANNELS, { error: `channels entries must be ${ONE_OF_CHANNELS}` }), {
    error: 'channels must be an array of channel names',
  })
  .check(
    z.minLength(1, { error: `channels must name at least 1 of ${CHANNELS.join(', ')} when present` }),
    z.refine((names: Channel[]) => new Set(names).size === names.length, {
      error: 'channels must not repeat a channel',
    }),
  );

export const resetConfigRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userIds,
  documentIds: z.optional(documentIds),
  channels: z.optional(channels),
});
export type ResetConfigRequest = z.infer<typeof resetConfigRequest>;
