import { ApiError } from '#shared/api/errors.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import { CHANGE_SORT_KEY, entrySortPrefix, userPartition } from './keys.js';

/*
 * A history page's cursor: the Query's LastEvaluatedKey as base64url JSON. Opaque to clients,
 * but checked whole on the way back in: it must be a key of the same user (and the same entry,
 * when filtered) with a sort key of the shape the service writes, so that a cursor can neither
 * read another user's changes nor reach DynamoDB with a key it refuses (an empty or malformed
 * sort key was a ValidationException, answered 500).
 */

export const INVALID_CURSOR_MESSAGE = 'cursor is not valid for this request; start again without it.';

export type HistoryKey = Record<string, string>;

export const encodeCursor = (key: HistoryKey): string => Buffer.from(JSON.stringify(key)).toString('base64url');

interface Scope {
  organizationId: string;
  userId: string;
  documentId?: string | null | undefined;
}

const isStringRecord = (value: unknown): value is HistoryKey =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((part) => typeof part === 'string');

/** The key a cursor holds, if it is one this request's Query could have answered; INVALID_ARGUMENT otherwise. */
export const decodeCursor = (cursor: string, { organizationId, userId, documentId }: Scope): HistoryKey => {
  const invalid = new ApiError('INVALID_ARGUMENT', INVALID_CURSOR_MESSAGE);
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid;
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid;
  }
  if (!isStringRecord(key)) throw invalid;
  if (!CHANGE_SORT_KEY.test(key.sk ?? '')) throw invalid;
  const fields = Object.keys(key).sort().join(',');
  const pk = userPartition(organizationId, userId);
  if (documentId === undefined) {
    if (fields !== 'pk,sk' || key.pk !== pk) throw invalid;
  } else {
    const entryPk = entryTableKey({ organizationId, userId, documentId }).pk;
    if (
      fields !== 'entryPk,entrySk,pk,sk' ||
      key.pk !== pk ||
      key.entryPk !== entryPk ||
      key.entrySk !== `${entrySortPrefix(userId)}${key.sk}`
    ) {
      throw invalid;
    }
  }
  return key;
};
