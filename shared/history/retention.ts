import * as z from 'zod/mini';
import { ENV, parseEnv } from '#shared/platform/environment.js';

/** The history table's TTL attribute (epoch seconds): DynamoDB deletes a change some time after it. */
export const HISTORY_TTL_ATTRIBUTE = 'expiresAt';

export const DEFAULT_HISTORY_RETENTION_DAYS = 365;
/** Ten years: longer is a mistake, not a retention policy. */
export const MAX_HISTORY_RETENTION_DAYS = 3650;

const retentionDays = z._default(
  z.pipe(z.coerce.number(), z.int().check(z.minimum(1), z.maximum(MAX_HISTORY_RETENTION_DAYS))),
  DEFAULT_HISTORY_RETENTION_DAYS,
);

export const historyRetentionDays = (env: NodeJS.ProcessEnv = process.env): number =>
  parseEnv(
    ENV.historyRetentionDays,
    retentionDays,
    `a whole number of days from 1 to ${MAX_HISTORY_RETENTION_DAYS}`,
    env,
  );

/** When a change made at `changedAt` (ISO-8601) expires, in epoch seconds. */
export const historyExpiry = (changedAt: string, days: number): number =>
  Math.floor(Date.parse(changedAt) / 1000) + days * 24 * 60 * 60;
