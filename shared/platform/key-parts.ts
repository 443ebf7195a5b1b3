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
