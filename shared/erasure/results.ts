import * as z from 'zod/mini';
import { described } from '#shared/api/describe.js';
import { ERASURE_STATUSES } from './model.js';

export const eraseResult = z.strictObject({
  erasureId: described(z.string(), 'Unique, sortable by creation time.'),
});
export type EraseResult = z.output<typeof eraseResult>;

const timestamp = () => described(z.iso.datetime(), 'ISO-8601 UTC time.');

export const erasureStatusResult = z.strictObject({
  erasureId: z.string(),
  organizationId: z.string(),
  userId: z.string(),
  status: z.enum(ERASURE_STATUSES),
  erased: described(
    z.int().check(z.nonnegative()),
    "The user's stored entries (documents and the organization level) erased so far.",
  ),
  createdAt: timestamp(),
  updatedAt: timestamp(),
  completedAt: z.optional(timestamp()),
});
export type ErasureStatusResult = z.output<typeof erasureStatusResult>;
