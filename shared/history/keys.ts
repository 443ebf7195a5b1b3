import { entryTableKey, escapeKeyPart } from '#shared/preferences/keys.js';

/**
 * Key design of the history table: one item per change of a config entry.
 *
 *   pk       = H#<org>#<user>                       every change of the user in the organization
 *   sk       = <changedAt>#<sequence number>        newest first with a backward Query
 *   entryPk  = the entry's config partition key     (DOC#<org>#<doc> or ORG#<org>)
 *   entrySk  = <user>#<changedAt>#<sequence number> index `byEntry`: one entry's changes, newest first
 *
 * Parts are escaped like the config table's keys (`#` and `%`), so the encoding is injective
 * and a user's prefix in `entrySk` never matches another user's. Worst case (identifiers of 256
 * UTF-16 units, each 3 UTF-8 bytes once escaped): pk and entryPk about 1,540 bytes (limit
 * 2,048), entrySk about 900 bytes with a category of 64 characters (limit 1,024). The sort key parts are derived from the stream
 * record alone, so a redelivered record lands on the same key (an idempotent conditional put).
 */
export const ENTRY_INDEX = 'byEntry';

/** Stream sequence numbers are decimal strings of up to 40 digits: padded, they sort as numbers. */
const SEQUENCE_DIGITS = 40;

export const userPartition = (organizationId: string, userId: string): string =>
  `H#${escapeKeyPart(organizationId)}#${escapeKeyPart(userId)}`;

/**
 * The shape of every sort key changeSortKey writes: an ISO-8601 UTC time, `#`, the padded
 * sequence number, and for a category layer's change `#` and the category id.
 */
export const CHANGE_SORT_KEY = new RegExp(
  `^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z#\\d{${SEQUENCE_DIGITS}}(#[a-z0-9][a-z0-9._-]{0,63})?$`,
);

/** One stream record may change several layers of an entry: each change has its own key. */
export const changeSortKey = (changedAt: string, sequenceNumber: string, category: string | null = null): string =>
  `${changedAt}#${sequenceNumber.padStart(SEQUENCE_DIGITS, '0')}${category === null ? '' : `#${category}`}`;

/** Prefix of entrySk for one user: every change of that user's entry, in the entry's partition. */
export const entrySortPrefix = (userId: string): string => `${escapeKeyPart(userId)}#`;

export const historyKeys = (
  entry: { organizationId: string; userId: string; documentId: string | null; category?: string | null },
  changedAt: string,
  sequenceNumber: string,
) => {
  const sk = changeSortKey(changedAt, sequenceNumber, entry.category ?? null);
  return {
    pk: userPartition(entry.organizationId, entry.userId),
    sk,
    entryPk: entryTableKey(entry).pk,
    entrySk: `${entrySortPrefix(entry.userId)}${sk}`,
  };
};
