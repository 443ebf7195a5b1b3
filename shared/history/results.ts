import * as z from 'zod/mini';
import { CHANGE_CAUSES } from '#shared/preferences/change-attribution.js';
import { scope, storedChannelConfig } from '#shared/preferences/results.js';

/** One change of one stored entry: a history item, and the detail of its event. */
export const historyChange = z.strictObject({
  changeId: z.string(),
  organizationId: z.string(),
  userId: z.string(),
  documentId: z.nullable(z.string()),
  scope,
  /** The category layer that changed, or null for the all-categories layer. */
  category: z.nullable(z.string()),
  cause: z.enum(CHANGE_CAUSES),
  changedAt: z.iso.datetime(),
  changedBy: z.string(),
  before: storedChannelConfig,
  after: storedChannelConfig,
});
export type HistoryChange = z.output<typeof historyChange>;
