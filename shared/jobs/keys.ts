import type { ItemKey } from './kind.js';

/**
 * Jobs live in the migrations table, each kind under keys of its own (kind.ts):
 *
 *   job record    pk = <keyPrefix><id>                     sk = RECORD
 *   subject lock  pk = the kind's lockKey(org, subject)    sk = LOCK
 *
 * Both are read and written by key (GetItem, conditional Put/Update/Delete).
 *
 * One sparse index, ACTIVE_INDEX: a record carries `activePk` (its kind's activePartition) from
 * its creation until it completes or fails, so each partition of the index holds one kind's
 * active jobs only, by `updatedAt`, and the sweeper (sweep.ts) finds the quiet ones with one
 * Query per kind instead of a Scan. Active jobs are few (at most the consumers' concurrency
 * are being written).
 */
export const RECORD_SK = 'RECORD';

export const recordKey = (kind: { keyPrefix: string }, id: string): ItemKey => ({
  pk: `${kind.keyPrefix}${id}`,
  sk: RECORD_SK,
});

export const ACTIVE_INDEX = 'activeByUpdatedAt';
export const ACTIVE_PK_ATTRIBUTE = 'activePk';
