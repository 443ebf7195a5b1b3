import { beforeEach, describe, expect, test } from '@jest/globals';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import type { RecordedChange } from '#shared/history/from-stream.js';
import type { HistoryChange } from '#shared/history/results.js';
import { uniqueId, useTestDynamo } from '../support/dynamo.js';

const dynamo = useTestDynamo();
let store: DynamoHistoryStore;

/** The running test's organization: a fresh one each test. */
let org = '';
beforeEach(async () => {
  org = uniqueId('acme');
  store = new DynamoHistoryStore(dynamo.doc, dynamo.tables.history);
});

let sequence = 0;
const change = (overrides: Partial<HistoryChange> = {}, sequenceNumber = String(++sequence)): RecordedChange => ({
  sequenceNumber,
  change: {
    changeId: `c-${sequenceNumber}`,
    organizationId: org,
    userId: 'alice',
    documentId: 'doc-1',
    scope: 'document',
    category: null,
    cause: 'set',
    changedAt: `2026-01-01T00:00:${String(sequence % 60).padStart(2, '0')}.000Z`,
    changedBy: 'ak_1',
    evidence: { via: 'api' },
    before: {},
    after: { inbox: 'ALL' },
    ...overrides,
  },
});

const ids = (changes: HistoryChange[]) => changes.map((c) => c.changeId);
/** Stores changes (expiring far in the future); answers the first that failed, if any. */
const storeChanges = (...changes: RecordedChange[]) =>
  store.recordAll(changes.map((recorded) => ({ recorded, expiresAt: 2_000_000_000 })));

describe('the history table', () => {
  test('a change is stored once: the same stream record again writes the same item', async () => {
    const one = change();
    expect(await storeChanges(one)).toBeUndefined();
    expect(await storeChanges(one)).toBeUndefined();
    expect((await store.list({ organizationId: org, userId: 'alice', limit: 10 })).changes).toEqual([one.change]);
  });

  test('60 changes in one call are all stored (three calls of at most 25)', async () => {
    const many = Array.from({ length: 60 }, (_, i) => change({ documentId: `doc-${i}` }));
    expect(await storeChanges(...many)).toBeUndefined();
    const listed = await store.list({ organizationId: org, userId: 'alice', limit: 100 });
    expect(ids(listed.changes).sort()).toEqual(ids(many.map((x) => x.change)).sort());
  });

  test("a user's changes newest first, by document, by organization level, page by page", async () => {
    const a = change({ changedAt: '2026-01-01T00:00:01.000Z' });
    const b = change({ changedAt: '2026-01-01T00:00:02.000Z', documentId: null, scope: 'organization' });
    const c = change({ changedAt: '2026-01-01T00:00:03.000Z', documentId: 'doc-2' });
    const d = change({ changedAt: '2026-01-01T00:00:04.000Z' });
    const otherUser = change({ changedAt: '2026-01-01T00:00:05.000Z', userId: 'alice#2' });
    const otherOrg = change({ changedAt: '2026-01-01T00:00:06.000Z', organizationId: `${org}#x` });
    await storeChanges(a, b, c, d, otherUser, otherOrg);

    const query = { organizationId: org, userId: 'alice' };
    expect(ids((await store.list({ ...query, limit: 10 })).changes)).toEqual(ids([d, c, b, a].map((x) => x.change)));
    expect(ids((await store.list({ ...query, documentId: 'doc-1', limit: 10 })).changes)).toEqual(
      ids([d, a].map((x) => x.change)),
    );
    expect(ids((await store.list({ ...query, documentId: null, limit: 10 })).changes)).toEqual([b.change.changeId]);
    expect((await store.list({ ...query, documentId: null, limit: 10 })).changes[0]?.documentId).toBeNull();

    const first = await store.list({ ...query, limit: 3 });
    expect(ids(first.changes)).toEqual(ids([d, c, b].map((x) => x.change)));
    const second = await store.list({ ...query, limit: 3, startKey: first.lastKey });
    expect(ids(second.changes)).toEqual([a.change.changeId]);
  });

  test('the layers of one stream record each have their own item; a category filter pages through the others', async () => {
    // One record (one sequence number) changing three layers, then changes of other layers.
    const record = (category: string | null, at: string, sequenceNumber: string) =>
      change(
        { changedAt: at, category, changeId: `${sequenceNumber}${category ? `:${category}` : ''}` },
        sequenceNumber,
      );
    const together = [
      record(null, '2026-01-01T00:00:01.000Z', '500'),
      record('comment', '2026-01-01T00:00:01.000Z', '500'),
      record('share', '2026-01-01T00:00:01.000Z', '500'),
    ];
    const later = Array.from({ length: 6 }, (_, i) =>
      record(i % 3 === 0 ? 'comment' : null, `2026-01-01T00:00:0${i + 2}.000Z`, String(600 + i)),
    );
    expect(await storeChanges(...together, ...later)).toBeUndefined();
    const query = { organizationId: org, userId: 'alice', limit: 10 };
    expect((await store.list(query)).changes).toHaveLength(9);

    const comment = await store.list({ ...query, documentId: 'doc-1', category: 'comment', limit: 2 });
    expect(comment.changes.map((c) => [c.changeId, c.category])).toEqual([
      ['603:comment', 'comment'],
      ['600:comment', 'comment'],
    ]);
    const rest = await store.list({
      ...query,
      documentId: 'doc-1',
      category: 'comment',
      limit: 2,
      startKey: comment.lastKey,
    });
    expect(rest.changes.map((c) => c.changeId)).toEqual(['500:comment']);
    const all = await store.list({ ...query, category: null });
    expect(all.changes.map((c) => c.changeId)).toEqual(['605', '604', '602', '601', '500']);
    expect(all.changes.every((c) => c.category === null)).toBe(true);
  });

  test("deletes one entry's changes of the user, or all the user's changes in the organization", async () => {
    const items = [
      change({ documentId: 'doc-1' }),
      change({ documentId: 'doc-2' }),
      change({ documentId: null, scope: 'organization' }),
      change({ documentId: 'doc-1', userId: 'bob' }),
    ];
    await storeChanges(...items);
    expect(await store.deleteEntryHistory(org, 'alice', ['doc-1'])).toBe(1);
    expect(ids((await store.list({ organizationId: org, userId: 'alice', limit: 10 })).changes).sort()).toEqual(
      ids([items[1]!, items[2]!].map((x) => x.change)).sort(),
    );
    expect(await store.deleteUserHistory(org, 'alice')).toBe(2);
    expect((await store.list({ organizationId: org, userId: 'alice', limit: 10 })).changes).toEqual([]);
    expect((await store.list({ organizationId: org, userId: 'bob', limit: 10 })).changes).toHaveLength(1);
  });

  test('worst-case identifiers fit the keys of the table and of its index', async () => {
    // 256 UTF-16 units each, 3 UTF-8 bytes per unit once escaped (see test/reliability/key-limits.test.ts).
    const worst = { organizationId: '#'.repeat(256), userId: '%'.repeat(256), documentId: '\uFFFD'.repeat(256) };
    const item = change({ ...worst }, '9'.repeat(40));
    expect(await storeChanges(item)).toBeUndefined();
    const query = { organizationId: worst.organizationId, userId: worst.userId, limit: 1 };
    expect((await store.list({ ...query, documentId: worst.documentId })).changes).toEqual([item.change]);
  });
});
