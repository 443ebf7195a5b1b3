import pMap from 'p-map';
import { assertAnswerFits, jsonBytes } from '#shared/api/answer-size.js';
import { ApiError } from '#shared/api/errors.js';
import { distinct, MAX_ENTRIES_PER_REQUEST } from '#shared/api/identifiers.js';
import { isTransientDependencyError } from '#shared/platform/dependency-errors.js';
import { logger } from '#shared/platform/logger.js';
import { countEntriesWritten } from '#shared/platform/metrics.js';
import { MAX_CATEGORY_LAYERS } from './layers.js';
import type { EntryKey, Scope } from './model.js';
import type { UserWriteResult } from './results.js';
import { CategoryLayersFull } from './store.js';
import { userMap } from './user-map.js';

/** The per-user message of a user whose entry could not take one more category layer. */
export const LAYERS_FULL_MESSAGE = `Not saved: an entry of this user already holds ${MAX_CATEGORY_LAYERS} category layers.`;

const layersFullMessage = (full: number, users: number) =>
  `An entry holds at most ${MAX_CATEGORY_LAYERS} category layers: ${full} of ${users} users have an entry that already holds ${MAX_CATEGORY_LAYERS} others, and the category was not added there. Reset a category of theirs first; their other entries, and the other users', were written.`;

/** The per-user answer of config/set and config/reset, as its schema describes it. */
export type UserSetResult = UserWriteResult;

export interface WriteOptions {
  /** Fires at the request's deadline: no write starts after it, and those in flight are cancelled. */
  signal?: AbortSignal | undefined;
}

export interface EntryWrites {
  organizationId: string;
  userIds: readonly string[];
  documentIds?: readonly string[] | undefined;
  concurrency: number;
  signal?: AbortSignal | undefined;
  /** Writes one entry. */
  write: (key: EntryKey) => Promise<void>;
  /** Runs once the request is known to fit its limits, before the first entry is written (a consent's text). */
  first?: (() => Promise<void>) | undefined;
  /** What the per-user messages and the 503 say. */
  messages: WriteMessages;
}

export interface WriteMessages {
  /** Logged, and names the metric of entries written: "set", "reset", "schedule". */
  operation: 'set' | 'reset' | 'schedule';
  done: string;
  failed: string;
  /** "could not be saved" in "Config could not be saved for 2 of 3 users; ...". */
  couldNot: string;
  /** What was written, "Config" unless told: "Schedule". */
  subject?: string;
}

// The per-user map repeats every document id for every user, so 1000 users x 5 documents with
// ids of 256 three-byte characters pass 5 MB, within MAX_ENTRIES_PER_REQUEST; such a request is
// refused before anything is written (answer-size.ts).

const assertEntriesWithin = (users: number, documents: number): void => {
  const entries = users * documents;
  if (entries > MAX_ENTRIES_PER_REQUEST) {
    throw new ApiError(
      'INVALID_ARGUMENT',
      `This request would write ${entries} entries (${users} users x ${documents} ${documents === 1 ? 'document' : 'documents'}), over the limit of ${MAX_ENTRIES_PER_REQUEST} entries per request (distinct users times documents; the organization level counts as one document). Send fewer users or documents per request, or write them with a bulk import (POST /v2/organizations/imports/create).`,
    );
  }
};

/** The size of an error answer whose details is the per-user map, every user failed with `failed`. */
const perUserAnswerBytes = (
  userIds: readonly string[],
  documentIds: readonly (string | null)[],
  error: { status: string; message: string; failed: string },
): number => {
  const listed = documentIds.length > 1 ? jsonBytes(documentIds) - jsonBytes([]) : 0;
  let bytes = jsonBytes({ error: { message: error.message, status: error.status, details: {} } });
  for (const userId of userIds) {
    const entry = {
      success: false,
      userId,
      documentId: documentIds[0] ?? null,
      ...(documentIds.length > 1 ? { documentIds: [] } : {}),
      scope: documentIds[0] === null ? 'organization' : 'document',
      message: error.failed,
    };
    // `"<userId>":{...},`
    bytes += jsonBytes(userId) + 1 + jsonBytes(entry) + listed + 1;
  }
  return bytes;
};

/**
 * The size of the largest answer the request can get, computed without building it: the 503 of
 * failed writes, or the 400 of entries full of category layers, each with the per-user map (the
 * document ids counted once and added per user).
 */
export const largestAnswerBytes = (
  userIds: readonly string[],
  documentIds: readonly (string | null)[],
  messages: WriteMessages,
): number => {
  const users = userIds.length;
  return Math.max(
    perUserAnswerBytes(userIds, documentIds, {
      status: 'UNAVAILABLE',
      message: `${messages.subject ?? 'Config'} ${messages.couldNot} for ${users} of ${users} users; the request is safe to retry.`,
      failed: messages.failed,
    }),
    perUserAnswerBytes(userIds, documentIds, {
      status: 'INVALID_ARGUMENT',
      message: layersFullMessage(users, users),
      failed: LAYERS_FULL_MESSAGE,
    }),
  );
};

const assertWriteAnswerFits = (
  userIds: readonly string[],
  documentIds: readonly (string | null)[],
  messages: WriteMessages,
): void =>
  assertAnswerFits(
    largestAnswerBytes(userIds, documentIds, messages),
    "every user's entry lists every document id",
    'Send fewer users or documents per request.',
  );

/**
 * One write per (user, document), or per user at the organization level when no documents are
 * named, `concurrency` in flight at once (REQUEST_WRITE_CONCURRENCY, batching.ts, unless told).
 * Each write stands alone: nothing is transactional across entries. Every entry is attempted;
 * users with an entry that still fails after the SDK's retries, or that was not written when the
 * deadline's signal fired, are reported and the request answers 503 so that the caller retries
 * (writes are idempotent).
 */
export const writeEntries = async ({
  organizationId,
  userIds: requestedUserIds,
  documentIds: requestedDocumentIds,
  concurrency,
  signal,
  write,
  first,
  messages,
}: EntryWrites): Promise<Record<string, UserSetResult>> => {
  const userIds = distinct(requestedUserIds);
  const documentIds: (string | null)[] = requestedDocumentIds ? distinct(requestedDocumentIds) : [null];
  assertEntriesWithin(userIds.length, documentIds.length);
  assertWriteAnswerFits(userIds, documentIds, messages);
  await first?.();
  // Entries not yet written, per user: a user succeeds when this reaches 0.
  const pending = new Map(userIds.map((userId) => [userId, documentIds.length]));
  // A failure that retrying cannot cure (a missing table, denied access) is a fault of the
  // deployment, not an outage: it becomes INTERNAL rather than "503, safe to retry".
  let fault: unknown;
  // Users with an entry that already holds MAX_CATEGORY_LAYERS other categories: a 400, not a 503.
  const full = new Set<string>();

  const keys = userIds.flatMap((userId) =>
    documentIds.map((documentId): EntryKey => ({ organizationId, userId, documentId })),
  );
  const written = (key: EntryKey) => pending.set(key.userId, (pending.get(key.userId) ?? 1) - 1);
  try {
    await pMap(
      keys,
      async (key) => {
        if (signal?.aborted) return;
        try {
          await write(key);
          written(key);
        } catch (error) {
          if (error instanceof CategoryLayersFull) {
            full.add(key.userId);
            return;
          }
          // A write cancelled by the deadline is reported as not written, not as a fault.
          if (signal?.aborted) return;
          if (!isTransientDependencyError(error)) fault ??= error;
          logger.error(`${messages.subject ?? 'Config'} ${messages.operation} failed`, {
            error,
            organizationId,
            userId: key.userId,
          });
        }
      },
      { concurrency, signal },
    );
  } catch (error) {
    if (!signal?.aborted) throw error;
    logger.warn(`${messages.subject ?? 'Config'} ${messages.operation} stopped at the deadline`, { organizationId });
  }
  // Counted whatever the answer: entries written before a failure stay written.
  let unwritten = 0;
  for (const count of pending.values()) unwritten += count;
  countEntriesWritten(messages.operation, keys.length - unwritten);
  if (fault !== undefined) throw fault;

  // Taken now: a write still settling after the deadline is reported as not done (safe to retry).
  const failed = new Set(userIds.filter((userId) => (pending.get(userId) ?? 0) > 0));
  const scope: Scope = documentIds[0] === null ? 'organization' : 'document';
  const results = userMap(
    userIds.map((userId): [string, UserSetResult] => {
      const success = !failed.has(userId);
      return [
        userId,
        {
          success,
          userId,
          documentId: documentIds[0] ?? null,
          ...(documentIds.length > 1 ? { documentIds: documentIds as string[] } : {}),
          scope,
          message: success ? messages.done : full.has(userId) ? LAYERS_FULL_MESSAGE : messages.failed,
        },
      ];
    }),
  );
  if (full.size > 0) {
    throw new ApiError('INVALID_ARGUMENT', layersFullMessage(full.size, userIds.length), results);
  }
  if (failed.size > 0) {
    throw new ApiError(
      'UNAVAILABLE',
      `${messages.subject ?? 'Config'} ${messages.couldNot} for ${failed.size} of ${userIds.length} users; the request is safe to retry.`,
      results,
    );
  }
  return results;
};
