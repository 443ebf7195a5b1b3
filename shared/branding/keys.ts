import { escapeKeyPart } from '#shared/platform/key-parts.js';

/**
 * An organization's branding lives in the config table, one item per organization, beside its
 * policy (shared/policy/keys.ts says why no entry can name such an item):
 *
 *   branding   pk = BRANDING#<org>   sk = BRANDING
 *
 * The change publisher's stream filters match entries and policies only: a branding change is
 * no event.
 */
export const BRANDING_SK = 'BRANDING';

export const brandingKey = (organizationId: string) => ({
  pk: `BRANDING#${escapeKeyPart(organizationId)}`,
  sk: BRANDING_SK,
});
