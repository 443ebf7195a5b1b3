import * as z from 'zod/mini';
import { evidenceSchema } from '#shared/consent/evidence.js';
import { once } from '#shared/platform/once.js';
import { CHANGE_CAUSES } from '#shared/preferences/change-attribution.js';
import { scope, storedChannelConfig } from '#shared/preferences/results.js';
import { schedule } from '#shared/schedules/schema.js';

/** One change of one stored entry: a history item, and the detail of its event. */
export const historyChange = once(() =>
  z.strictObject({
    changeId: z.string(),
    organizationId: z.string(),
    userId: z.string(),
    documentId: z.nullable(z.string()),
    /** `schedule` for a change of the user's schedule (docs/api.md, Delivery schedules). */
    scope: z.enum([...scope().options, 'schedule']),
    /** The category layer that changed, or null for the all-categories layer. */
    category: z.nullable(z.string()),
    cause: z.enum(CHANGE_CAUSES),
    changedAt: z.iso.datetime(),
    changedBy: z.string(),
    /** How the change was made (docs/api.md, Consent evidence). */
    evidence: evidenceSchema(),
    /** The layer's stored channels; for a schedule's change the schedule, or null when none. */
    before: z.union([storedChannelConfig(), z.nullable(schedule())]),
    after: z.union([storedChannelConfig(), z.nullable(schedule())]),
  }),
);
export type HistoryChange = z.output<ReturnType<typeof historyChange>>;
