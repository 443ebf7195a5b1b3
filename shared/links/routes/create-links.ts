import * as z from 'zod/mini';
import { categoryId } from '#shared/api/categories.js';
import { CHANNELS } from '#shared/api/channels.js';
import { identifier } from '#shared/api/identifiers.js';
import { canonicalTag, LOCALES, MAX_LOCALE_LENGTH } from '#shared/api/locales.js';
import { once } from '#shared/platform/once.js';
import type { Route } from '#shared/platform/route.js';
import { userIds } from '#shared/preferences/schemas.js';
import { LIST_UNSUBSCRIBE_POST, MAX_LINK_DAYS, MAX_LINK_MINUTES, MIN_LINK_MINUTES } from '../model.js';

/** POST /v2/notifications/links/create */
export const createLinksRequest = z
  .strictObject({
    organizationId: identifier('organizationId'),
    userIds,
    documentId: z.optional(identifier('documentId')),
    category: z.optional(categoryId('category')),
    channel: z.optional(z.enum(CHANNELS, { error: `channel must be one of ${CHANNELS.join(', ')}` })),
    expiresInDays: z.optional(
      z
        .int({ error: 'expiresInDays must be a whole number' })
        .check(
          z.minimum(1, { error: `expiresInDays must be between 1 and ${MAX_LINK_DAYS}` }),
          z.maximum(MAX_LINK_DAYS, { error: `expiresInDays must be between 1 and ${MAX_LINK_DAYS}` }),
        ),
    ),
    // In place of expiresInDays (not both): a link an app opens in its own UI at once.
    expiresInMinutes: z.optional(
      z.int({ error: 'expiresInMinutes must be a whole number' }).check(
        z.minimum(MIN_LINK_MINUTES, {
          error: `expiresInMinutes must be between ${MIN_LINK_MINUTES} and ${MAX_LINK_MINUTES}`,
        }),
        z.maximum(MAX_LINK_MINUTES, {
          error: `expiresInMinutes must be between ${MIN_LINK_MINUTES} and ${MAX_LINK_MINUTES}`,
        }),
      ),
    ),
    // The pages' language (docs/api.md, The pages' languages): any BCP 47 tag; one of a language
    // the pages do not speak leaves the choice to the browser's Accept-Language.
    locale: z.optional(
      z.string({ error: 'locale must be a string' }).check(
        z.refine((tag) => canonicalTag(tag) !== undefined, {
          error: `locale must be a BCP 47 language tag of at most ${MAX_LOCALE_LENGTH} characters, such as ${LOCALES.join(', ')}`,
        }),
      ),
    ),
  })
  .check(
    z.refine((request) => request.expiresInDays === undefined || request.expiresInMinutes === undefined, {
      error: 'expiresInDays and expiresInMinutes cannot both be given: choose one',
      path: ['expiresInMinutes'],
    }),
  );
export type CreateLinksRequest = z.infer<typeof createLinksRequest>;

export const userLinks = once(() =>
  z.strictObject({
    unsubscribeUrl: z.string(),
    preferencesUrl: z.string(),
    expiresAt: z.iso.datetime(),
    headers: z.strictObject({
      'List-Unsubscribe': z.string(),
      'List-Unsubscribe-Post': z.literal(LIST_UNSUBSCRIBE_POST),
    }),
  }),
);
export type UserLinks = z.output<ReturnType<typeof userLinks>>;

/** Keyed by user id: one entry per distinct user. */
export const createLinksResult = once(() => z.record(z.string(), userLinks()));
export type CreateLinksResult = z.output<ReturnType<typeof createLinksResult>>;

export const CREATE_LINKS_MESSAGE = 'Links created successfully.';

export const createLinksRoute = {
  operationId: 'createLinks',
  path: '/v2/notifications/links/create',
  request: createLinksRequest,
  result: createLinksResult,
  message: CREATE_LINKS_MESSAGE,
  scope: 'resolve',
  // Writes nothing and reads nothing but the keys: a link carries its own scope.
  function: { secrets: ['linkKeys'], settings: ['linksBaseUrl'] },
} as const satisfies Route;
