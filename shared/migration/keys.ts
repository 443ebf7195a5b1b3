import { escapeKeyPart } from '#shared/preferences/keys.js';

/**
 * Key design of the migrations table (pk, sk), two kinds of item:
 *
 *   migration record   pk = MIGRATION#<migrationId>       sk = RECORD
 *   document lock      pk = LOCK#<org>#<documentId>        sk = LOCK
 *
 * Both are read and written by key only (GetItem, conditional Put/Update/Delete): no Query,
 * no index. Parts are escaped like the config table's keys, so the encoding is injective.
 */
export const RECORD_SK = 'RECORD';
export const LOCK_SK = 'LOCK';

export const migrationKey = (migrationId: string) => ({ pk: `MIGRATION#${migrationId}`, sk: RECORD_SK });

export const lockKey = (organizationId: string, documentId: string) => ({
  pk: `LOCK#${escapeKeyPart(organizationId)}#${escapeKeyPart(documentId)}`,
  sk: LOCK_SK,
});
