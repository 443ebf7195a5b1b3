import { escapeKeyPart } from '#shared/preferences/keys.js';

/**
 * Keys of an erasure's items in the migrations table (layout: shared/jobs/keys.ts and
 * docs/design.md). The user lock names the erasure active for that user in that organization.
 */
export const ERASURE_PREFIX = 'ERASURE#';

export const erasureLockKey = (organizationId: string, userId: string) => ({
  pk: `ERASURE_LOCK#${escapeKeyPart(organizationId)}#${escapeKeyPart(userId)}`,
  sk: 'LOCK',
});
