import { z } from 'zod';
import { identifier, MAX_DOCUMENT_IDS, MAX_USER_IDS } from '#shared/validation/identifiers.js';
import { CHANNELS, deliverySetting } from './model.js';

const channelValue = z.enum(deliverySetting.options, {
  error: `must be one of ${deliverySetting.options.join(', ')}`,
});

export const channelConfig = z
  .strictObject({ inbox: channelValue.optional(), email: channelValue.optional(), slack: channelValue.optional() })
  .refine((config) => CHANNELS.some((channel) => config[channel] !== undefined), {
    error: `config must set at least one of ${CHANNELS.join(', ')}`,
  });

export const documentIds = z
  .array(identifier('documentId'), { error: 'documentIds must be an array of strings' })
  .min(1, { error: `documentIds must have between 1 and ${MAX_DOCUMENT_IDS} entries when present` })
  .max(MAX_DOCUMENT_IDS, { error: `documentIds must have at most ${MAX_DOCUMENT_IDS} entries` });

export const setConfigRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userIds: z
    .array(identifier('userId'), { error: 'userIds must be an array of strings' })
    .min(1, { error: 'userIds must have at least 1 entry' })
    .max(MAX_USER_IDS, { error: `userIds must have at most ${MAX_USER_IDS} entries` }),
  documentIds: documentIds.optional(),
  config: channelConfig,
});
export type SetConfigRequest = z.infer<typeof setConfigRequest>;

export const getConfigRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userId: identifier('userId'),
  documentIds: documentIds.optional(),
});
export type GetConfigRequest = z.infer<typeof getConfigRequest>;
