import { describe, expect, test } from '@jest/globals';
import { contents, DST, h, ORG, SRC, sourceEntries, summary, useMigrationHarness } from './migration-fixtures.js';

const dynamo = useMigrationHarness();

describe('large documents', () => {
  test('5,000 entries in pages, with a continuation near the time limit', async () => {
    await h.seed(sourceEntries(5000));
    const id = await h.start(ORG, SRC, DST);
    let queries = 0;
    const counting = new Proxy(h.store, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver);
        if (property !== 'listDocumentEntries') return value;
        return (...args: Parameters<typeof target.listDocumentEntries>) => {
          queries += 1;
          return value.apply(target, args);
        };
      },
    });
    // Storage calls of the migration itself, by operation.
    const calls: Record<string, number> = {};
    dynamo.client.middlewareStack.add(
      (next, context) => (args) => {
        calls[context.commandName as string] = (calls[context.commandName as string] ?? 0) + 1;
        return next(args);
      },
      { step: 'initialize', name: 'countCalls' },
    );
    // The first delivery "runs out of time" after 20 pages.
    const first = await h.deliver(
      id,
      { entries: counting },
      { remainingTimeMs: () => (queries < 20 ? 60_000 : 1_000) },
    );
    expect(first).toBe('continued');
    expect(h.queue.sent).toEqual([id, id]); // the start, then the continuation
    const halfway = await h.repository.get(id);
    expect(halfway).toMatchObject({ status: 'in_progress', moved: 2000, skipped: 0 });
    expect(halfway?.leaseOwner).toBeUndefined();

    expect(await h.deliver(id, { entries: counting }, { remainingTimeMs: () => 60_000 })).toBe('completed');
    expect(await summary(id)).toEqual({ status: 'completed', moved: 5000, skipped: 0 });
    expect(queries).toBe(51); // 50 full pages and the empty one
    // The cost goals: at most 1.1 write calls and 0.05 read calls per entry.
    const total = (names: string[]) => names.reduce((sum, name) => sum + (calls[name] ?? 0), 0);
    // A copy is one TransactWriteItems (its put and the source's stamp: copies.ts); the sources'
    // deletes go 25 to a PartiQL batch (4 per page of 100), none alone.
    expect(calls.TransactWriteItemsCommand).toBe(5000);
    expect(calls.BatchExecuteStatementCommand).toBe(200);
    // DeleteItem: only the two documents' locks, released at completion.
    expect(calls.DeleteItemCommand).toBe(2);
    const writes = total([
      'PutItemCommand',
      'DeleteItemCommand',
      'UpdateItemCommand',
      'BatchWriteItemCommand',
      'TransactWriteItemsCommand',
      'BatchExecuteStatementCommand',
    ]);
    const reads = total(['QueryCommand', 'BatchGetItemCommand', 'GetItemCommand']);
    expect(writes / 5000).toBeLessThanOrEqual(1.1);
    expect(reads / 5000).toBeLessThanOrEqual(0.05);
    dynamo.client.middlewareStack.remove('countCalls');

    expect(await h.documentEntries(ORG, SRC)).toEqual([]);
    expect(Object.keys(await contents(DST))).toHaveLength(5000);
  }, 300_000);
});
