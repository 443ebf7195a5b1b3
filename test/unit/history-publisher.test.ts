import { describe, expect, test } from '@jest/globals';
import type { BusEvent, EventBus } from '#shared/events/events.js';
import { createPublisherHandler, type PublisherDeps } from '#shared/events/publisher.js';
import type { RecordedChange } from '#shared/history/from-stream.js';
import type { HistoryPage, HistoryStore, HistoryWrite, HistoryWriteFailure } from '#shared/history/store.js';
import { logger } from '#shared/platform/logger.js';
import { entryItem, migrationItem, streamRecord } from '../support/stream-records.js';

logger.setLogLevel('SILENT');

/** The history as a map keyed like the table: a second write of a key writes the same item. */
class MemoryHistory implements HistoryStore {
  readonly items = new Map<string, RecordedChange>();
  /** What the publisher asked, in order: each recordAll's sequence numbers, each entry erased. */
  readonly calls: string[] = [];
  failOn?: string;
  async recordAll(writes: readonly HistoryWrite[]): Promise<HistoryWriteFailure | undefined> {
    this.calls.push(`store ${writes.map(({ recorded }) => recorded.sequenceNumber).join(',')}`);
    for (const [index, { recorded }] of writes.entries()) {
      if (recorded.sequenceNumber === this.failOn) return { index, error: new Error('throttled') };
      this.items.set(recorded.sequenceNumber, recorded);
    }
    return undefined;
  }
  async list(): Promise<HistoryPage> {
    return { changes: [] };
  }
  failErase = false;
  async deleteEntryHistory(
    organizationId: string,
    userId: string,
    documentIds: readonly (string | null)[],
  ): Promise<number> {
    this.calls.push(`erase ${JSON.stringify([organizationId, userId, documentIds])}`);
    if (this.failErase) throw new Error('throttled');
    return 0;
  }
  async deleteUserHistory(): Promise<number> {
    return 0;
  }
}

class MemoryBus implements EventBus {
  readonly published: BusEvent[] = [];
  refuse = 0;
  async publish(events: readonly BusEvent[]): Promise<void> {
    if (this.refuse > 0) {
      this.refuse -= 1;
      throw new Error('refused');
    }
    this.published.push(...events);
  }
}

const setup = () => {
  const history = new MemoryHistory();
  const bus = new MemoryBus();
  const deps: PublisherDeps = {
    history,
    bus,
    tables: { config: 'config', migrations: 'migrations' },
    retentionDays: 365,
  };
  return { history, bus, handler: createPublisherHandler(deps) };
};

const set = (sequenceNumber: string, inbox: string) =>
  streamRecord('config', 'MODIFY', { old: entryItem(), new: entryItem({ inbox }) }, sequenceNumber);

/** The erasure worker's removal of alice's entry on doc-1, or another (stamped with the erasure's cause). */
const erasure = (sequenceNumber?: string, layers: Record<string, unknown> = {}) =>
  streamRecord(
    'config',
    'REMOVE',
    { old: entryItem({ inbox: 'ALL', ...layers, changeCause: 'erasure', changedBy: 'erasure:e1' }) },
    sequenceNumber,
  );

/** The erasure of `userId`'s entry on `documentId`. */
const erasureOf = (sequenceNumber: string, userId: string, documentId: string) =>
  erasure(sequenceNumber, { pk: `DOC#acme#${documentId}`, documentId, sk: userId, userId });

const ALICE_DOC_1 = `erase ${JSON.stringify(['acme', 'alice', ['doc-1']])}`;

describe('the change publisher', () => {
  test('each change is stored once and announced; a redelivered batch writes the same items', async () => {
    const { history, bus, handler } = setup();
    const event = { Records: [set('1', 'ALL'), set('2', 'NONE')] };
    expect(await handler(event)).toEqual({ batchItemFailures: [] });
    expect(await handler(event)).toEqual({ batchItemFailures: [] });
    expect([...history.items.keys()]).toEqual(['1', '2']);
    // Events are at least once: the same ids again.
    expect(bus.published.map((e) => e.detail.id)).toEqual(['event-1', 'event-2', 'event-1', 'event-2']);
    expect(bus.published[0]).toMatchObject({
      detailType: 'Notification Config Changed',
      source: 'notification-preferences',
      detail: { id: 'event-1', changeId: 'event-1', after: { inbox: 'ALL' }, cause: 'set' },
    });
  });

  test('a record that fails fails every later one of the batch, unprocessed, so changes keep their order', async () => {
    const { history, bus, handler } = setup();
    history.failOn = '2';
    const response = await handler({ Records: [set('1', 'ALL'), set('2', 'NONE'), set('3', 'MINE')] });
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: '2' }, { itemIdentifier: '3' }]);
    expect([...history.items.keys()]).toEqual(['1']);
    expect(bus.published.map((e) => e.detail.id)).toEqual(['event-1']);
  });

  test('events that cannot be published fail their record and the later ones', async () => {
    const { bus, handler } = setup();
    bus.refuse = 1;
    const records = Array.from({ length: 12 }, (_, i) => set(String(i + 1), 'ALL'));
    const response = await handler({ Records: records });
    // The first 10 events go in one call, which is refused: every record is reported.
    expect(response.batchItemFailures).toHaveLength(12);
    expect(response.batchItemFailures[0]).toEqual({ itemIdentifier: '1' });
  });

  test("a batch's changes are stored together; an erasure's delete waits for the changes before it", async () => {
    const { history, bus, handler } = setup();
    const erased = erasure('3');
    const response = await handler({
      Records: [set('1', 'ALL'), set('2', 'NONE'), erased, set('4', 'MINE'), set('5', 'ALL')],
    });
    expect(response.batchItemFailures).toEqual([]);
    expect(history.calls).toEqual(['store 1,2', ALICE_DOC_1, 'store 4,5']);
    expect(bus.published.map((e) => e.detail.id)).toEqual(['event-1', 'event-2', 'event-3', 'event-4', 'event-5']);
  });

  test("consecutive erasures of one user's entries are one deletion; another user's, or a change, starts another", async () => {
    const { history, handler } = setup();
    const response = await handler({
      Records: [
        erasureOf('1', 'alice', 'doc-1'),
        erasureOf('2', 'alice', 'doc-2'),
        erasureOf('3', 'alice', 'doc-3'),
        erasureOf('4', 'bob', 'doc-1'),
        set('5', 'ALL'),
        erasureOf('6', 'bob', 'doc-2'),
      ],
    });
    expect(response.batchItemFailures).toEqual([]);
    expect(history.calls).toEqual([
      `erase ${JSON.stringify(['acme', 'alice', ['doc-1', 'doc-2', 'doc-3']])}`,
      `erase ${JSON.stringify(['acme', 'bob', ['doc-1']])}`,
      'store 5',
      `erase ${JSON.stringify(['acme', 'bob', ['doc-2']])}`,
    ]);
  });

  test('a deletion that fails fails the first erasure it gathered and every later record, never an earlier one', async () => {
    const { history, bus, handler } = setup();
    history.failErase = true;
    const response = await handler({
      Records: [set('1', 'ALL'), erasureOf('2', 'alice', 'doc-1'), erasureOf('3', 'alice', 'doc-2'), set('4', 'NONE')],
    });
    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: '2' },
      { itemIdentifier: '3' },
      { itemIdentifier: '4' },
    ]);
    expect(history.calls).toEqual(['store 1', `erase ${JSON.stringify(['acme', 'alice', ['doc-1', 'doc-2']])}`]);
    expect(bus.published.map((e) => e.detail.id)).toEqual(['event-1']);
  });

  test('a change the history refuses fails its record and the later ones, never the earlier; no erasure runs past it', async () => {
    const { history, bus, handler } = setup();
    history.failOn = '2';
    const erased = erasure('3');
    const response = await handler({ Records: [set('1', 'ALL'), set('2', 'NONE'), erased] });
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: '2' }, { itemIdentifier: '3' }]);
    expect(history.calls).toEqual(['store 1,2']);
    expect(bus.published.map((e) => e.detail.id)).toEqual(['event-1']);
  });

  test('a record that cannot be read fails with the later ones, after the history of those before it', async () => {
    const { history, bus, handler } = setup();
    const unreadable = set('2', 'NONE');
    (unreadable.dynamodb as { NewImage: unknown }).NewImage = { inbox: { Q: 'x' } };
    const response = await handler({ Records: [set('1', 'ALL'), unreadable, set('3', 'MINE')] });
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: '2' }, { itemIdentifier: '3' }]);
    expect(history.calls).toEqual(['store 1']);
    expect(bus.published.map((e) => e.detail.id)).toEqual(['event-1']);
  });

  test('a batch whose events were refused leaves nothing behind: the next batch reports no failure', async () => {
    const { bus, handler } = setup();
    bus.refuse = 1;
    expect((await handler({ Records: [set('1', 'ALL')] })).batchItemFailures).toEqual([{ itemIdentifier: '1' }]);
    expect(await handler({ Records: [set('2', 'NONE')] })).toEqual({ batchItemFailures: [] });
    // Nor does a new handler (a module's state is the warm instance's).
    expect(await setup().handler({ Records: [set('3', 'MINE')] })).toEqual({ batchItemFailures: [] });
  });

  test("an erasure of an entry with several layers erases the entry's history once, and announces each layer", async () => {
    const { history, bus, handler } = setup();
    const erased = erasure(undefined, {
      'c:comment:email': 'NONE',
      'c:mention:slack': 'ALL',
      categoryIds: new Set(['comment', 'mention']),
    });
    await handler({ Records: [erased] });
    expect(history.calls).toEqual([ALICE_DOC_1]);
    // Every layer's change is still announced (before: null).
    expect(bus.published.map((e) => e.detail.category ?? null)).toEqual([null, 'comment', 'mention']);
  });

  test("an erasure's change is not stored: it removes that entry's history", async () => {
    const { history, bus, handler } = setup();
    const erased = erasure();
    await handler({ Records: [erased] });
    expect(history.items.size).toBe(0);
    expect(history.calls).toEqual([ALICE_DOC_1]);
    expect(bus.published[0]?.detail).toMatchObject({ cause: 'erasure', changedBy: 'erasure:e1', after: {} });
  });

  test('a migration record that completes or fails is announced with its status; progress is not', async () => {
    const { bus, handler } = setup();
    const migration = migrationItem({ leaseOwner: 'run-1', runs: { 'run-1': 1 } });
    await handler({
      Records: [
        streamRecord('migrations', 'MODIFY', {
          old: { ...migration, status: 'pending' },
          new: { ...migration, status: 'in_progress' },
        }),
        streamRecord('migrations', 'MODIFY', {
          old: { ...migration, status: 'in_progress' },
          new: { ...migration, status: 'completed', completedAt: '2026-01-01T00:00:05.000Z' },
        }),
        streamRecord('migrations', 'MODIFY', {
          old: { ...migration, status: 'in_progress' },
          new: { ...migration, status: 'failed', error: 'gave up' },
        }),
      ],
    });
    expect(bus.published).toEqual([
      {
        detailType: 'Document Migration Completed',
        source: 'notification-preferences',
        detail: {
          id: 'migration:m1:completed',
          migrationId: 'm1',
          organizationId: 'acme',
          documentId: 'doc-1',
          newDocumentId: 'doc-2',
          status: 'completed',
          moved: 3,
          skipped: 1,
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-01T00:00:05.000Z',
          completedAt: '2026-01-01T00:00:05.000Z',
        },
      },
      expect.objectContaining({
        detailType: 'Document Migration Failed',
        detail: expect.objectContaining({ id: 'migration:m1:failed', status: 'failed', error: 'gave up' }),
      }),
    ]);
  });
  test('an erasure record that completes is announced as User Erased, once; a failed one is not', async () => {
    const { bus, handler } = setup();
    const erasure = {
      pk: 'ERASURE#e1',
      sk: 'RECORD',
      erasureId: 'e1',
      organizationId: 'acme',
      userId: 'alice',
      erased: 4,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:01.000Z',
      runs: {},
    };
    await handler({
      Records: [
        streamRecord('migrations', 'MODIFY', {
          old: { ...erasure, status: 'in_progress' },
          new: { ...erasure, status: 'completed', completedAt: '2026-01-01T00:00:01.000Z', expiresAt: 1 },
        }),
        // The TTL's delete, 30 days later, and a failed erasure: nothing.
        streamRecord('migrations', 'REMOVE', { old: { ...erasure, status: 'completed' } }),
        streamRecord('migrations', 'MODIFY', {
          old: { ...erasure, erasureId: 'e2', status: 'in_progress' },
          new: { ...erasure, erasureId: 'e2', status: 'failed' },
        }),
      ],
    });
    expect(bus.published).toEqual([
      {
        detailType: 'User Erased',
        source: 'notification-preferences',
        detail: { id: 'erasure:e1:completed', organizationId: 'acme', userId: 'alice', erasureId: 'e1', erased: 4 },
      },
    ]);
  });
});
