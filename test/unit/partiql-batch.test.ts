import { describe, expect, test } from '@jest/globals';
import {
  type ItemWrite,
  toDeleteItem,
  toPartiqlDelete,
  toPartiqlInsert,
  toPartiqlUpdate,
  toUpdateItem,
} from '#shared/platform/item-write.js';
import { type ExecuteStatements, writeBatch } from '#shared/platform/partiql-batch.js';
import { deleteWrite, stampWrite } from '#shared/preferences/dynamo-store.js';

// The batches of config/set and schedule/set: an UPDATE never creates, an INSERT never changes,
// so each refused for that is sent again as the other kind; anything else is left to the
// caller's single writes. What is sent is what DynamoDB would be asked.

const write = (sk: string, extra: Partial<ItemWrite> = {}): ItemWrite => ({
  key: { pk: 'P', sk },
  set: [['inbox', 'ALL']],
  increment: ['version'],
  conditions: [{ kind: 'notAfter', attribute: 'inboxAt', value: '2026' }],
  ...extra,
});

/** A store that answers each statement by its kind and item: `present` items exist. */
const fakeStore = (present: Set<string>, refuse: Record<string, string> = {}) => {
  const sent: string[][] = [];
  const execute: ExecuteStatements = async (statements) => {
    sent.push(statements.map(({ Statement }) => Statement.split(' ')[0] as string));
    return statements.map(({ Statement, Parameters }) => {
      const sk = Statement.startsWith('INSERT') ? Parameters[1] : Parameters[Parameters.length - 2];
      if (refuse[String(sk)]) return refuse[String(sk)];
      if (Statement.startsWith('INSERT')) return present.has(String(sk)) ? 'DuplicateItem' : undefined;
      return present.has(String(sk)) ? undefined : 'ConditionalCheckFailed';
    });
  };
  return { sent, execute };
};

describe('writeBatch', () => {
  test('UPDATE first: missing items are INSERTed in a second call, existing ones updated once', async () => {
    const store = fakeStore(new Set(['a']));
    const outcome = await writeBatch(store.execute, 'config', [write('a'), write('b'), write('c')], 'update');
    expect(outcome).toEqual({ unwritten: [], conditionFailed: [], existing: 1, created: 2 });
    expect(store.sent).toEqual([
      ['UPDATE', 'UPDATE', 'UPDATE'],
      ['INSERT', 'INSERT'],
    ]);
  });

  test('INSERT first: existing items are UPDATEd in a second call', async () => {
    const store = fakeStore(new Set(['a']));
    const outcome = await writeBatch(store.execute, 'config', [write('a'), write('b')], 'insert');
    expect(outcome).toEqual({ unwritten: [], conditionFailed: [], existing: 1, created: 1 });
    expect(store.sent).toEqual([['INSERT', 'INSERT'], ['UPDATE']]);
  });

  test('a statement throttled, or refused as both kinds, is left unwritten for the single writes', async () => {
    const store = fakeStore(new Set(['newer']), { throttled: 'ThrottlingError' });
    const refusedBoth: ExecuteStatements = async (statements) => {
      const codes = await store.execute(statements);
      // "newer" exists but its condition fails: its UPDATE is refused too.
      return codes.map((code, i) =>
        statements[i]?.Statement.startsWith('UPDATE') && statements[i]?.Parameters.includes('newer')
          ? 'ConditionalCheckFailed'
          : code,
      );
    };
    const outcome = await writeBatch(
      refusedBoth,
      'config',
      [write('newer'), write('throttled'), write('ok')],
      'update',
    );
    expect(outcome.unwritten.sort()).toEqual([0, 1]);
    // Only "newer" was refused by its condition (as both kinds); "throttled" may pass alone.
    expect(outcome.conditionFailed).toEqual([0]);
    expect(outcome.created).toBe(1);
  });

  test('a write that must find its item is never INSERTed', async () => {
    const store = fakeStore(new Set());
    const mustExist = write('gone', { conditions: [{ kind: 'exists', attribute: 'pk' }] });
    expect(toPartiqlInsert('config', mustExist)).toBeUndefined();
    const outcome = await writeBatch(store.execute, 'config', [mustExist], 'insert');
    expect(outcome).toEqual({ unwritten: [0], conditionFailed: [0], existing: 0, created: 0 });
    expect(store.sent).toEqual([['UPDATE']]);
  });

  test('a failed call leaves every write unwritten; at the deadline it throws instead', async () => {
    const failing: ExecuteStatements = async () => {
      throw Object.assign(new Error('down'), { name: 'InternalServerError' });
    };
    expect(await writeBatch(failing, 'config', [write('a'), write('b')], 'update')).toEqual({
      unwritten: [0, 1],
      conditionFailed: [],
      existing: 0,
      created: 0,
    });
    const controller = new AbortController();
    controller.abort();
    await expect(writeBatch(failing, 'config', [write('a')], 'update', controller.signal)).rejects.toThrow('down');
  });

  test('more than 25 writes is a caller bug', async () => {
    const store = fakeStore(new Set());
    const writes = Array.from({ length: 26 }, (_, i) => write(`k${i}`));
    await expect(writeBatch(store.execute, 'config', writes, 'update')).rejects.toThrow(/25/);
  });
});

describe('one write, three renderings', () => {
  const full: ItemWrite = {
    key: { pk: 'DOC#o#d', sk: 'u' },
    set: [
      ['c:comments:inbox', 'NONE'],
      ['c:comments:inboxAt', 't'],
    ],
    remove: ['tombstoneExpiresAt'],
    increment: ['version'],
    addToSet: [['categoryIds', new Set(['comments'])]],
    conditions: [
      { kind: 'notAfter', attribute: 'c:comments:inboxAt', value: 't' },
      { kind: 'roomFor', attribute: 'categoryIds', member: 'comments', max: 100 },
    ],
  };

  test('UpdateItem: names and values by placeholder, every condition', () => {
    const update = toUpdateItem(full);
    expect(update.UpdateExpression).toBe('SET #a0 = :v0, #a1 = :v1 REMOVE #a2 ADD #a3 :v2, #a4 :v3');
    expect(update.ConditionExpression).toBe(
      '(attribute_not_exists(#a5) OR #a5 <= :v4) AND (attribute_not_exists(#a6) OR contains(#a6, :v5) OR size(#a6) < :v6)',
    );
    expect(update.ExpressionAttributeNames).toMatchObject({ '#a0': 'c:comments:inbox', '#a6': 'categoryIds' });
  });

  test('PartiQL UPDATE: the same clauses, the key and the conditions in its WHERE, values as parameters', () => {
    expect(toPartiqlUpdate('config', full)).toEqual({
      Statement:
        'UPDATE "config" SET "c:comments:inbox" = ? SET "c:comments:inboxAt" = ? SET "version" = "version" + 1 SET "categoryIds" = set_add("categoryIds", ?) REMOVE "tombstoneExpiresAt" WHERE "pk" = ? AND "sk" = ? AND ("c:comments:inboxAt" IS MISSING OR "c:comments:inboxAt" <= ?) AND ("categoryIds" IS MISSING OR contains("categoryIds", ?) OR size("categoryIds") < ?)',
      Parameters: ['NONE', 't', new Set(['comments']), 'DOC#o#d', 'u', 't', 'comments', 100],
    });
  });

  test('PartiQL INSERT: the item an UpdateItem would create (version 1, the set, nothing removed)', () => {
    expect(toPartiqlInsert('config', full)).toEqual({
      Statement:
        "INSERT INTO \"config\" VALUE {'pk': ?, 'sk': ?, 'c:comments:inbox': ?, 'c:comments:inboxAt': ?, 'version': ?, 'categoryIds': ?}",
      Parameters: ['DOC#o#d', 'u', 'NONE', 't', 1, new Set(['comments'])],
    });
  });

  test('a name that cannot be quoted is refused, never spliced', () => {
    expect(() => toPartiqlUpdate('config', write('x', { set: [['a"b', 1]] }))).toThrow(/Unquotable/);
    expect(() => toPartiqlInsert('config', write('x', { set: [["a'b", 1]] }))).toThrow(/Unquotable/);
  });

  test('an equality condition: `=` in both dialects, and no INSERT (the item must hold the value)', () => {
    const stamp = stampWrite(
      { organizationId: 'o', userId: 'u', documentId: 'd', version: 3, updatedAt: '2026-01-01T00:00:00.000Z' },
      { cause: 'erasure', changedBy: 'erasure:e1', changedAt: '2026-02-01T00:00:00.000Z' },
    );
    expect(toUpdateItem(stamp)).toMatchObject({
      ConditionExpression: '#a3 = :v3 AND #a4 = :v4',
      ExpressionAttributeNames: { '#a3': 'version', '#a4': 'updatedAt' },
      ExpressionAttributeValues: { ':v3': 3, ':v4': '2026-01-01T00:00:00.000Z' },
    });
    expect(toPartiqlUpdate('config', stamp).Statement).toMatch(
      /WHERE "pk" = \? AND "sk" = \? AND "version" = \? AND "updatedAt" = \?$/,
    );
    // A stamp never creates an entry: stampForDelete's batches hold UPDATEs only (its grant is PartiQLUpdate alone).
    expect(toPartiqlInsert('config', stamp)).toBeUndefined();
  });

  test("a delete: DeleteItem's condition and a PartiQL DELETE with the same key and conditions", () => {
    const del = deleteWrite(
      { organizationId: 'o', userId: 'u', documentId: 'd', version: 3, updatedAt: '2026-01-01T00:00:00.000Z' },
      { cause: 'migration', changedBy: 'migration:m1', changedAt: '2026-02-01T00:00:00.000Z' },
    );
    expect(toDeleteItem(del)).toEqual({
      Key: del.key,
      ConditionExpression: '#a0 = :v0 AND #a1 = :v1 AND #a2 = :v2 AND #a3 = :v3',
      ExpressionAttributeNames: { '#a0': 'version', '#a1': 'updatedAt', '#a2': 'changedBy', '#a3': 'changedAt' },
      ExpressionAttributeValues: {
        ':v0': 3,
        ':v1': '2026-01-01T00:00:00.000Z',
        ':v2': 'migration:m1',
        ':v3': '2026-02-01T00:00:00.000Z',
      },
    });
    expect(toPartiqlDelete('config', del)).toEqual({
      Statement:
        'DELETE FROM "config" WHERE "pk" = ? AND "sk" = ? AND "version" = ? AND "updatedAt" = ? AND "changedBy" = ? AND "changedAt" = ?',
      Parameters: [del.key.pk, del.key.sk, 3, '2026-01-01T00:00:00.000Z', 'migration:m1', '2026-02-01T00:00:00.000Z'],
    });
  });
});
