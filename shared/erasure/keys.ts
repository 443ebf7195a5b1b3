import { escapeKeyPart } from '#shared/preferences/keys.js';

/**
 * Keys of an erasure's items in the migrations table (shared/jobs/keys.ts has the layout), next
 * to migrations (both are jobs of the service, recorded, queued and announced from that table's
 * stream):
 *
 *   erasure record   pk = ERASURE#<erasureId>               sk = RECORD
 *   user lock        pk = ERASURE_LOCK#<org>#<userId>        sk = LOCK
 *
 * The lock names the erasure active for that user in that organization: a repeated request
 * answers its id. Parts are escaped like the config table's keys.
 */
export const ERASURE_PREFIX = 'ERASURE#';

export const erasureLockKey = (organizationId: string, userId: string) => ({
  pk: `ERASURE_LOCK#${escapeKeyPart(organizationId)}#${escapeKeyPart(userId)}`,
  sk: 'LOCK',
});
