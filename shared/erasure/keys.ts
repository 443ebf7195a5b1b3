import { escapeKeyPart } from '#shared/preferences/keys.js';

/**
 * Erasures live in the migrations table next to migrations (both are jobs of the service,
 * recorded, queued and announced from that table's stream), with keys of their own:
 *
 *   erasure record   pk = ERASURE#<erasureId>               sk = RECORD
 *   user lock        pk = ERASURE_LOCK#<org>#<userId>        sk = LOCK
 *
 * The lock names the erasure active for that user in that organization: a repeated request
 * answers its id. Read and written by key only. Parts are escaped like the config table's keys.
 */
export const ERASURE_PREFIX = 'ERASURE#';

export const erasureKey = (erasureId: string) => ({ pk: `${ERASURE_PREFIX}${erasureId}`, sk: 'RECORD' });

export const erasureLockKey = (organizationId: string, userId: string) => ({
  pk: `ERASURE_LOCK#${escapeKeyPart(organizationId)}#${escapeKeyPart(userId)}`,
  sk: 'LOCK',
});
