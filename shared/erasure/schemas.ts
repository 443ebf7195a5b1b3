import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';

/** The body of a message on the erasure queue. */
export const erasureMessage = z.strictObject({ erasureId: identifier('erasureId') });
export type ErasureMessage = z.infer<typeof erasureMessage>;
