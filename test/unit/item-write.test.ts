import { describe, expect, test } from '@jest/globals';
import {
  type ItemWrite,
  toDeleteItem,
  toPartiqlDelete,
  toPartiqlInsert,
  toPartiqlUpdate,
  toUpdateItem,
} from '#shared/platform/item-write.js';
import { deleteWrite, stampWrite } from '#shared/preferences/entry-updates.js';

// What is sent is what DynamoDB would be asked: one write of an entry, in each rendering it has.

describe('one write, rendered as UpdateItem and, for the job pages, PartiQL', () => {
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

  test('PartiQL INSERT: the item the update would create (key, values, counter at 1, set), no condition left to hold', () => {
    expect(toPartiqlInsert('config', full)).toEqual({
      Statement:
        "INSERT INTO \"config\" VALUE {'pk': ?, 'sk': ?, 'c:comments:inbox': ?, 'c:comments:inboxAt': ?, 'version': ?, 'categoryIds': ?}",
      Parameters: ['DOC#o#d', 'u', 'NONE', 't', 1, new Set(['comments'])],
    });
    expect(() => toPartiqlInsert('config', { ...full, conditions: [{ kind: 'exists', attribute: 'pk' }] })).toThrow(
      /requires a stored item/,
    );
    expect(() => toPartiqlInsert('config', { key: { pk: 'P', sk: 'x' }, set: [["a'b", 1]], conditions: [] })).toThrow(
      /Unquotable/,
    );
  });

  test('a name that cannot be quoted is refused, never spliced', () => {
    expect(() => toPartiqlUpdate('config', { key: { pk: 'P', sk: 'x' }, set: [['a"b', 1]], conditions: [] })).toThrow(
      /Unquotable/,
    );
  });

  test('an equality condition: `=` in both dialects (the item must hold the value)', () => {
    const stamp = stampWrite(
      { organizationId: 'o', userId: 'u', documentId: 'd', version: 3, updatedAt: '2026-01-01T00:00:00.000Z' },
      { cause: 'erasure', changedBy: 'erasure:e1', changedAt: '2026-02-01T00:00:00.000Z' },
    );
    expect(toUpdateItem(stamp)).toMatchObject({
      ConditionExpression: '#a4 = :v4 AND #a5 = :v5',
      ExpressionAttributeNames: { '#a4': 'version', '#a5': 'updatedAt' },
      ExpressionAttributeValues: { ':v4': 3, ':v5': '2026-01-01T00:00:00.000Z' },
    });
    expect(toPartiqlUpdate('config', stamp).Statement).toMatch(
      /WHERE "pk" = \? AND "sk" = \? AND "version" = \? AND "updatedAt" = \?$/,
    );
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
