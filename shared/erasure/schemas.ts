import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';

/** POST /v2/organizations/users/erase */
export const eraseRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  userId: identifier('userId'),
});
export type EraseRequest = z.infer<typeof eraseRequest>;

/** POST /v2/organizations/users/erase/status */
export const erasureStatusRequest = z.strictObject({
  organizationId: identifier('organizationId'),
  erasureId: identifier('erasureId'),
});
export type ErasureStatusRequest = z.infer<typeof erasureStatusRequest>;

/** The body of a message on the erasure queue. */
export const erasureMessage = z.strictObject({ erasureId: identifier('erasureId') });
export type ErasureMessage = z.infer<typeof erasureMessage>;
