import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ApiError } from '#shared/api/errors.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import { CHANGE_SORT_KEY, entrySortPrefix, userPartition } from './keys.js';

/*
 * A history page's cursor: the Query's LastEvaluatedKey, encrypted and authenticated
 * (AES-256-GCM) under a deployment key, `<keyId>.<base64url of IV, ciphertext and tag>`. Opaque:
 * it shows nothing of the table's key layout. Bound to the request: the organization, the user
 * and the filter (a document, the organization level, or every entry) are its additional
 * authenticated data, so a cursor of another request, or altered, fails to open. The key is
 * derived from the link keys (shared/links/keyring.ts: one more HKDF purpose), so no new secret
 * exists for it; a cursor sealed with a key since retired fails like an altered one (the caller
 * starts again). What opens is still checked whole: a key of the same user (and the same entry,
 * when filtered) with a sort key of the shape the service writes, so that DynamoDB never sees a
 * key it refuses (an empty or malformed sort key was a ValidationException, answered 500).
 */

/** Far above any history cursor the service hands out (a key of at most some 4 KiB, sealed, base64url). */
export const MAX_CURSOR_LENGTH = 8192;

export const INVALID_CURSOR_MESSAGE = 'cursor is not valid for this request; start again without it.';

export type HistoryKey = Record<string, string>;

/** A key that seals cursors: its id (in clear in the cursor) and its 256 bits. */
export interface CursorKey {
  id: string;
  historyCursor: Uint8Array;
}

/** The keys cursors are sealed with (current) and opened with (any, by id): the link keyring's shape. */
export interface CursorKeys {
  current: CursorKey;
  byId: ReadonlyMap<string, CursorKey>;
}

export interface CursorKeySource {
  keyring(): Promise<CursorKeys>;
}

interface Scope {
  organizationId: string;
  userId: string;
  documentId?: string | null | undefined;
}

const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEALED_CURSOR = /^([a-z0-9][a-z0-9-]{0,31})\.([A-Za-z0-9_-]+)$/;

/** The request a cursor belongs to: an omitted documentId (every entry) is 0, unlike null and any id. */
const boundTo = ({ organizationId, userId, documentId }: Scope): Buffer =>
  Buffer.from(JSON.stringify(['config/history', organizationId, userId, documentId === undefined ? 0 : documentId]));

/**
 * `plain` sealed with the current key for the request `boundTo` names (its additional
 * authenticated data): the one way the service's cursors are made (this history's, the export's).
 */
export const sealCursor = (plain: string, boundTo: Buffer, keys: CursorKeys): string => {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(CIPHER, keys.current.historyCursor, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(boundTo);
  const sealed = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${keys.current.id}.${sealed.toString('base64url')}`;
};

/** The cursor of `key` for the request `scope`, sealed with the current key. */
export const encodeCursor = (key: HistoryKey, scope: Scope, keys: CursorKeys): string =>
  sealCursor(JSON.stringify(key), boundTo(scope), keys);

const isStringRecord = (value: unknown): value is HistoryKey =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((part) => typeof part === 'string');

/**
 * Refuses (INVALID_ARGUMENT) what cannot be a cursor at all, by its shape alone: checked before
 * the keys are read, so that no text costs a read of the secret.
 */
export const assertCursorShape = (cursor: string): void => {
  const body = SEALED_CURSOR.exec(cursor)?.[2];
  if (body === undefined || Buffer.from(body, 'base64url').length < IV_BYTES + TAG_BYTES) {
    throw new ApiError('INVALID_ARGUMENT', INVALID_CURSOR_MESSAGE);
  }
};

/** The plain text of a cursor sealed for the request `boundTo` names with one of `keys`, or undefined. */
export const openCursor = (cursor: string, boundTo: Buffer, keys: CursorKeys): string | undefined => {
  const [, keyId, body] = SEALED_CURSOR.exec(cursor) ?? [];
  const key = keyId === undefined ? undefined : keys.byId.get(keyId);
  if (!key || body === undefined) return undefined;
  const sealed = Buffer.from(body, 'base64url');
  if (sealed.length < IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv(CIPHER, key.historyCursor, sealed.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(boundTo);
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    return undefined;
  }
};

/** The key a cursor holds, if it was sealed for this request and is one its Query could have answered; INVALID_ARGUMENT otherwise. */
export const decodeCursor = (cursor: string, scope: Scope, keys: CursorKeys): HistoryKey => {
  const { organizationId, userId, documentId } = scope;
  const invalid = new ApiError('INVALID_ARGUMENT', INVALID_CURSOR_MESSAGE);
  const text = openCursor(cursor, boundTo(scope), keys);
  if (text === undefined) throw invalid;
  let key: unknown;
  try {
    key = JSON.parse(text);
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
