import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';

/** The body of a message on the migration queue (first delivery and continuations alike). */
export const migrationMessage = z.strictObject({ migrationId: identifier('migrationId') });
export type MigrationMessage = z.infer<typeof migrationMessage>;
