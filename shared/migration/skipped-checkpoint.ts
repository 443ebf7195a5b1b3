import type { MarkedEntry } from '#shared/preferences/store.js';

/**
 * Identifies one version of a source entry in the skipped checkpoint. Versions restart after a
 * delete, so updatedAt is part of it.
 */
export const skippedKey = (entry: MarkedEntry): string =>
  JSON.stringify([entry.userId, entry.version, entry.updatedAt]);

/** DynamoDB orders sort keys by their UTF-8 bytes (not JavaScript's UTF-16 order). */
const compareKeys = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/**
 * The checkpoint to save with a page. Skipped versions stay until they are gone from the source:
 * those skipped in this page, and older ones that sort after this page's last key (not yet seen
 * again). A page shorter than the page size reached the end of the source: nothing lies after it.
 */
export const nextCheckpoint = (
  previous: Iterable<string>,
  sources: readonly MarkedEntry[],
  pageSize: number,
  skipped: readonly MarkedEntry[],
): Set<string> => {
  const lastKey = sources.at(-1)?.userId;
  const full = sources.length === pageSize;
  const next = new Set<string>();
  for (const key of previous) {
    const [userId] = JSON.parse(key) as [string];
    if (full && lastKey !== undefined && compareKeys(userId, lastKey) > 0) next.add(key);
  }
  for (const source of skipped) next.add(skippedKey(source));
  return next;
};
