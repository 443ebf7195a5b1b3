import { escapeKeyPart } from '#shared/preferences/keys.js';

/**
 * Key design of the migrations table (pk, sk), two kinds of item:
 *
 *   migration record   pk = MIGRATION#<migrationId>       sk = RECORD
 *   document lock      pk = LOCK#<org>#<documentId>        sk = LOCK
 *
 * Both are read and written by key (GetItem, conditional Put/Update/Delete). Parts are escaped
 * like the config table's keys, so the encoding is injective.
 *
 * One sparse index, ACTIVE_INDEX: a record carries `activePk` from its creation until it
 * completes or fails, so the index holds the active migrations only, by `updatedAt`, and the
 * sweeper (sweep.ts) finds the quiet ones with one Query instead of a Scan. One partition is
 * enough: active migrations are few (at most the consumer's concurrency are being written).
 */
export const RECORD_SK = 'RECORD';
export const LOCK_SK = 'LOCK';

export const migrationKey = (migrationId: string) => ({ pk: `MIGRATION#${migrationId}`, sk: RECORD_SK });

export const lockKey = (organizationId: string, documentId: string) => ({
  pk: `LOCK#${escapeKeyPart(organizationId)}#${escapeKeyPart(documentId)}`,
  sk: LOCK_SK,
});

export const ACTIVE_INDEX = 'activeByUpdatedAt';
export const ACTIVE_PK_ATTRIBUTE = 'activePk';
export const ACTIVE_PK = 'ACTIVE';
