import { ApiError } from '#shared/api/errors.js';
import { type CursorKeys, INVALID_CURSOR_MESSAGE, openCursor, sealCursor } from '#shared/history/cursor.js';
import { CHANGE_SORT_KEY, userPartition } from '#shared/history/keys.js';
import { parsePartition } from '#shared/preferences/keys.js';

/*
 * Where an export page stopped, sealed like config/history's cursor (shared/history/cursor.ts:
 * AES-256-GCM under the key derived from the link keys) and bound to the organization and the user:
 * a cursor of another user's export, or altered, fails to open. What opens is still checked whole,
 * so that DynamoDB never sees a key the service would not have written.
 */

export const EXPORT_PHASES = ['entries', 'changes', 'texts'] as const;
export type ExportPhase = (typeof EXPORT_PHASES)[number];

export interface ExportPosition {
  phase: ExportPhase;
  /** The key the phase's next Query starts after (the user index's, or the history's). */
  key?: Record<string, string>;
  /** The first 16 hex digits of each consent text already in the export: each text once. */
  sent: string[];
  /** The hashes of texts the changes so far refer to and the export has not held yet. */
  pending: string[];
}

export const SENT_PREFIX = 16;
const SENT = /^[0-9a-f]{16}$/;
const HASH = /^[0-9a-f]{64}$/;

const boundTo = (organizationId: string, userId: string): Buffer =>
  Buffer.from(JSON.stringify(['users/export', organizationId, userId]));

export const encodeExportCursor = (
  position: ExportPosition,
  organizationId: string,
  userId: string,
  keys: CursorKeys,
): string =>
  sealCursor(
    JSON.stringify([position.phase, position.key ?? null, position.sent, position.pending]),
    boundTo(organizationId, userId),
    keys,
  );

const isStrings = (value: unknown, shape: RegExp): value is string[] =>
  Array.isArray(value) && value.every((one) => typeof one === 'string' && shape.test(one));

const isStringRecord = (value: unknown): value is Record<string, string> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((part) => typeof part === 'string');

/** A key of the user index that is one of this user's entries in this organization. */
const isUserIndexKey = (key: Record<string, string>, organizationId: string, userId: string): boolean => {
  if (Object.keys(key).sort().join(',') !== 'organizationId,pk,sk,userId') return false;
  if (key.organizationId !== organizationId || key.userId !== userId || key.sk !== userId) return false;
  try {
    return parsePartition(key.pk ?? '').organizationId === organizationId;
  } catch {
    return false;
  }
};

const isHistoryKey = (key: Record<string, string>, organizationId: string, userId: string): boolean =>
  Object.keys(key).sort().join(',') === 'pk,sk' &&
  key.pk === userPartition(organizationId, userId) &&
  CHANGE_SORT_KEY.test(key.sk ?? '');

/** The position a cursor holds, if it was sealed for this user's export and holds what the export writes; INVALID_ARGUMENT otherwise. */
export const decodeExportCursor = (
  cursor: string,
  organizationId: string,
  userId: string,
  keys: CursorKeys,
): ExportPosition => {
  const invalid = new ApiError('INVALID_ARGUMENT', INVALID_CURSOR_MESSAGE);
  const text = openCursor(cursor, boundTo(organizationId, userId), keys);
  if (text === undefined) throw invalid;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid;
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) throw invalid;
  const [phase, key, sent, pending] = parsed as unknown[];
  if (!EXPORT_PHASES.includes(phase as ExportPhase) || !isStrings(sent, SENT) || !isStrings(pending, HASH)) {
    throw invalid;
  }
  if (key !== null) {
    if (!isStringRecord(key)) throw invalid;
    const fits =
      phase === 'entries'
        ? isUserIndexKey(key, organizationId, userId)
        : phase === 'changes' && isHistoryKey(key, organizationId, userId);
    if (!fits) throw invalid;
  }
  return { phase: phase as ExportPhase, ...(key === null ? {} : { key }), sent, pending };
};
