/**
 * The one encoding of identifiers inside DynamoDB keys. `#` separates the parts of a key, so `%`
 * and `#` inside an identifier are percent-escaped: every key is injective and reversible, and
 * every other character is stored as it is. Each kind of item starts its partition key with a
 * kind of its own (`DOC#`, `ORG#`, `POLICY#`, `SCHEDULE#`, ...): an escaped part holds no `#`, so
 * the first part alone tells the kinds apart, whatever the identifiers after it.
 */
export const escapeKeyPart = (value: string): string => value.replaceAll('%', '%25').replaceAll('#', '%23');

export const unescapeKeyPart = (value: string): string =>
  value.replace(/%2[35]/g, (sequence) => (sequence === '%23' ? '#' : '%'));

/** The key of an item in every table keyed `pk` and `sk` (all but the credentials' and the limits'). */
export type TableKey = { pk: string; sk: string };

/** Whether a read item is the one stored under `key`. */
export const isItemAt = (item: Readonly<Record<string, unknown>>, key: TableKey): boolean =>
  item.pk === key.pk && item.sk === key.sk;

/**
 * One string per key, for a set or map of keys. NUL cannot occur in a key: every part is an
 * identifier (no control characters), escaped, or a constant of the service.
 */
export const keyId = ({ pk, sk }: Readonly<Record<string, unknown>>): string => `${String(pk)}\u0000${String(sk)}`;
