import * as z from 'zod/mini';
import { erasureStatusResult } from '#shared/erasure/status-schema.js';
import { historyChange } from '#shared/history/results.js';
import { once } from '#shared/platform/once.js';
import { scope, storedChannelConfig } from '#shared/preferences/results.js';
import { schedule } from '#shared/schedules/schema.js';

/*
 * What a user's export answers (docs/api.md, users/export): its records and page bounds, apart
 * from the route, so that the preference page's download bundles them without the API route.
 */

/** A page of the export holds at most this many records... */
export const MAX_EXPORT_RECORDS = 1_000;
/** ...and at most this many bytes of records (UTF-8 JSON). */
export const MAX_EXPORT_PAGE_BYTES = 1_000_000;

/** One record of a person's data, typed by `kind`. */
export const exportRecord = once(() =>
  z.union([
    /** A stored entry: a document's, or the organization level's (documentId null), with its category layers. */
    z.strictObject({
      kind: z.literal('entry'),
      documentId: z.nullable(z.string()),
      scope: scope(),
      config: storedChannelConfig(),
      categories: z.record(z.string(), storedChannelConfig()),
      updatedAt: z.string(),
    }),
    /** The user's delivery schedule in the organization. */
    z.strictObject({ kind: z.literal('schedule'), schedule: schedule() }),
    /** A change of the history, with its evidence. */
    z.extend(historyChange(), { kind: z.literal('change') }),
    /** A consent text a change refers to by its SHA-256, once per export. */
    z.strictObject({ kind: z.literal('consentText'), sha256: z.string(), text: z.string() }),
    /** When the user's links were last revoked: links made before it no longer work. */
    z.strictObject({ kind: z.literal('linkRevocation'), revokedBefore: z.iso.datetime() }),
    /** After an erasure completed: its status record, and nothing of what it erased. */
    z.extend(erasureStatusResult(), { kind: z.literal('erasure') }),
  ]),
);
export type ExportRecord = z.output<ReturnType<typeof exportRecord>>;

export const exportUserResult = once(() =>
  z.strictObject({
    organizationId: z.string(),
    userId: z.string(),
    exportedAt: z.iso.datetime(),
    records: z.array(exportRecord()),
    nextCursor: z.optional(z.string()),
  }),
);
export type ExportUserResult = z.output<ReturnType<typeof exportUserResult>>;
