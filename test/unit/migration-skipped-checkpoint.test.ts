import { describe, expect, test } from '@jest/globals';
import { nextCheckpoint, skippedKey } from '#shared/migration/skipped-checkpoint.js';
import type { MarkedEntry } from '#shared/preferences/store.js';

const entry = (userId: string, version = 1, updatedAt = '2026-03-01T00:00:00.000Z'): MarkedEntry => ({
  organizationId: 'org-1',
  userId,
  documentId: 'src',
  scope: 'document',
  config: { inbox: 'ALL' },
  updatedAt,
  updatedBy: 'ak',
  version,
});

describe('the skipped checkpoint', () => {
  test('tells versions of an entry apart, also a re-created one whose version restarted', () => {
    expect(skippedKey(entry('u1', 1))).not.toBe(skippedKey(entry('u1', 2)));
    expect(skippedKey(entry('u1', 1))).not.toBe(skippedKey(entry('u1', 1, '2026-03-02T00:00:00.000Z')));
    expect(skippedKey(entry('u1', 1))).toBe(skippedKey(entry('u1', 1)));
  });

  test("adds the page's skipped entries", () => {
    const page = [entry('a'), entry('b'), entry('c')];
    expect([...nextCheckpoint([], page, 3, [entry('b')])]).toEqual([skippedKey(entry('b'))]);
  });

  test('keeps older entries still ahead of a full page, drops those the page has passed', () => {
    const previous = [skippedKey(entry('a')), skippedKey(entry('c')), skippedKey(entry('z'))];
    const page = [entry('b'), entry('c')];
    expect([...nextCheckpoint(previous, page, 2, [])]).toEqual([skippedKey(entry('z'))]);
  });

  test('after a page shorter than the page size (the end of the source) only its own skipped entries stay', () => {
    const previous = [skippedKey(entry('z'))];
    expect([...nextCheckpoint(previous, [entry('b')], 2, [entry('b')])]).toEqual([skippedKey(entry('b'))]);
  });

  test('orders keys as DynamoDB does, by UTF-8 bytes', () => {
    // In UTF-8 bytes U+FF5E comes before U+1F600; JavaScript's UTF-16 comparison says the opposite.
    const emoji = '\u{1F600}';
    const fullwidth = '\uFF5E';
    expect(emoji < fullwidth).toBe(true);
    const passed = nextCheckpoint([skippedKey(entry(fullwidth))], [entry('a'), entry(emoji)], 2, []);
    expect([...passed]).toEqual([]);
    const ahead = nextCheckpoint([skippedKey(entry(emoji))], [entry('a'), entry(fullwidth)], 2, []);
    expect([...ahead]).toEqual([skippedKey(entry(emoji))]);
  });
});
