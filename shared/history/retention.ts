/** The history table's TTL attribute (epoch seconds): DynamoDB deletes a change some time after it. */
export const HISTORY_TTL_ATTRIBUTE = 'expiresAt';

/** When a change made at `changedAt` (ISO-8601) expires, in epoch seconds. */
export const historyExpiry = (changedAt: string, days: number): number =>
  Math.floor(Date.parse(changedAt) / 1000) + days * 24 * 60 * 60;
