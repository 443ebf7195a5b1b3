import { escapeKeyPart } from '#shared/platform/key-parts.js';

/**
 * An organization's policy lives in the config table, one item per organization:
 *
 *   policy   pk = POLICY#<org>   sk = POLICY
 *
 * No entry's partition starts with `POLICY#` (theirs start `DOC#` or `ORG#`, and an escaped
 * organization id holds no `#`), so no user id, whatever it holds, can name this item. Its change
 * goes through the table's stream like an entry's, and becomes the policy's event. It carries
 * no `userId`, so the index of a user's entries never holds it.
 */
export const POLICY_SK = 'POLICY';

export const policyKey = (organizationId: string) => ({ pk: `POLICY#${escapeKeyPart(organizationId)}`, sk: POLICY_SK });

export const POLICY_PK_PREFIX = 'POLICY#';
export const isPolicyKey = (pk: unknown): boolean => typeof pk === 'string' && pk.startsWith(POLICY_PK_PREFIX);
