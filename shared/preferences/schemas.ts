import * as z from 'zod/mini';
import { categoryId } from '#shared/api/categories.js';
import { CHANNELS, deliverySetting } from '#shared/api/channels.js';
import { identifier, MAX_DOCUMENT_IDS, MAX_USER_IDS } from '#shared/api/identifiers.js';
import { consentRequest } from '#shared/consent/consent.js';

// The request pieces the config routes share (each route's own schema is in routes/). Request
// schemas run in every function, so they use zod's tree-shakable mini API (the classic API would
// add some 440 KiB to each bundle); the bench's bundle figures show it.

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
    z.minLength(1, { error: 'documentIds must have at least 1 entry when present' }),
    z.maxLength(MAX_DOCUMENT_IDS, { error: `documentIds must have at most ${MAX_DOCUMENT_IDS} entries` }),
  );

export const userIds = z
  .array(identifier('userId'), { error: 'userIds must be an array of strings' })
  .check(
    z.minLength(1, { error: 'userIds must have at least 1 entry' }),
    z.maxLength(MAX_USER_IDS, { error: `userIds must have at most ${MAX_USER_IDS} entries` }),
  );

/** The category a request is about (docs/api.md, Categories and policy); omitted: all categories. */
export const category = z.optional(categoryId('category'));

/** What the caller states of the consent it captured (docs/api.md, Consent evidence); omitted: none. */
export const consent = z.optional(consentRequest);
