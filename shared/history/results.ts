import * as z from 'zod/mini';
import { described } from '#shared/api/describe.js';
import { CHANGE_CAUSES } from '#shared/preferences/change-attribution.js';
import { scope, storedChannelConfig } from '#shared/preferences/results.js';

/** One change of one stored entry: a history item, and the detail of its event. */
export const historyChange = z.strictObject({
  changeId: described(z.string(), 'Unique per change; the same in the history and in its event.'),
  organizationId: z.string(),
  userId: z.string(),
  documentId: described(z.nullable(z.string()), 'The document, or null for the organization-level entry.'),
  scope,
  cause: described(z.enum(CHANGE_CAUSES), 'What made the change.'),
  changedAt: described(z.iso.datetime(), 'ISO-8601 UTC time of the change.'),
  changedBy: described(
    z.string(),
    'The api key for set and reset, `migration:<migrationId>` or `erasure:<erasureId>` otherwise.',
  ),
  before: described(storedChannelConfig, 'The stored channels before the change; {} when there was no entry.'),
  after: described(storedChannelConfig, 'The stored channels after the change; {} when there is no entry.'),
});
export type HistoryChange = z.output<typeof historyChange>;

/** The `result.data` of config/history. */
export const historyResult = z.strictObject({
  changes: described(z.array(historyChange), 'Newest first.'),
  nextCursor: z.optional(
    described(z.string(), 'Present when more changes follow: pass it as `cursor` to read the next page.'),
  ),
});
export type HistoryResult = z.output<typeof historyResult>;
