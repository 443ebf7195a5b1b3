import { escapeKeyPart, type TableKey, unescapeKeyPart } from '#shared/platform/key-parts.js';
import type { EntryKey } from './model.js';
import type { UserEntryPage } from './store.js';

export { escapeKeyPart, type TableKey, unescapeKeyPart } from '#shared/platform/key-parts.js';

/**
 * Key encoding of the config table. `#` separates key parts, so `%` and `#` inside an
 * identifier are percent-escaped: the encoding is injective and reversible, and every other
 * character is stored as it is. The user id is the whole sort key and needs no escaping.
 *
 *   document-level entry      pk = DOC#<org>#<doc>   sk = <userId>
 *   organization-level entry  pk = ORG#<org>         sk = <userId>
 *
 * All entries of one document share a partition, so migration lists them with one Query.
 */
/**
 * The config table's index of one user's entries in one organization (partition organizationId,
 * sort userId, keys only): what an erasure deletes, found without a Scan. Every entry carries
 * both attributes from its first write.
 */
export const USER_INDEX = 'byUser';

export const documentPartition = (organizationId: string, documentId: string): string =>
  `DOC#${escapeKeyPart(organizationId)}#${escapeKeyPart(documentId)}`;

export const organizationPartition = (organizationId: string): string => `ORG#${escapeKeyPart(organizationId)}`;

export const entryTableKey = ({ organizationId, userId, documentId }: EntryKey): TableKey => ({
  pk: documentId === null ? organizationPartition(organizationId) : documentPartition(organizationId, documentId),
  sk: userId,
});

/** Inverse of the partition encoding; used by tests and tools to prove the round trip. */
export const parsePartition = (pk: string): { organizationId: string; documentId: string | null } => {
  const [kind, org, doc, ...rest] = pk.split('#');
  if (kind === 'ORG' && org !== undefined && doc === undefined) {
    return { organizationId: unescapeKeyPart(org), documentId: null };
  }
  if (kind === 'DOC' && org !== undefined && doc !== undefined && rest.length === 0) {
    return { organizationId: unescapeKeyPart(org), documentId: unescapeKeyPart(doc) };
  }
  throw new Error(`Not a config partition key: ${pk}`);
};

/**
 * A page of the user index (which projects only the keys) as entry keys, with the key to go on
 * from: what the erasure and the export read of it.
 */
export const userIndexPage = (
  organizationId: string,
  output: { Items?: Record<string, unknown>[] | undefined; LastEvaluatedKey?: Record<string, unknown> | undefined },
): UserEntryPage => {
  const keys = (output.Items ?? []).map((item): EntryKey => {
    const { documentId } = parsePartition(item.pk as string);
    return { organizationId, userId: item.sk as string, documentId };
  });
  const lastKey = output.LastEvaluatedKey as Record<string, string> | undefined;
  return { keys, ...(lastKey ? { lastKey } : {}) };
};
