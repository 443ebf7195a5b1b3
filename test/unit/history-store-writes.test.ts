import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, expect, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { historyKeys } from '#shared/history/keys.js';
import type { HistoryWrite } from '#shared/history/store.js';

// How the change publisher's history is written: 25 puts to a BatchWriteItem, the calls at once;
// a call that fails is written again one change at a time, to answer the first change that fails.

const ddb = mockClient(DynamoDBDocumentClient);
const store = new DynamoHistoryStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local' })), 'history');
beforeEach(() => {
  ddb.reset();
});

const writes: HistoryWrite[] = Array.from({ length: 60 }, (_, i) => ({
  recorded: {
    sequenceNumber: String(1000 + i),
    change: {
      changeId: `c-${i}`,
      organizationId: 'acme',
      userId: `u${i}`,
      documentId: 'doc-1',
      scope: 'document',
      category: null,
      cause: 'set',
      changedAt: '2026-01-01T00:00:00.000Z',
      changedBy: 'ak_1',
      evidence: { via: 'api' },
      before: {},
      after: { inbox: 'ALL' },
    },
  },
  expiresAt: 2_000_000_000,
}));

type Request = { PutRequest?: { Item: Record<string, unknown> } };
const sentUsers = () =>
  ddb
    .commandCalls(BatchWriteCommand)
    .map((call) =>
      ((call.args[0].input.RequestItems?.history ?? []) as Request[]).map((r) => r.PutRequest?.Item.userId),
    );

test('60 changes: three BatchWriteItem calls of 25, 25 and 10 puts, no single put', async () => {
  ddb.on(BatchWriteCommand).resolves({});
  expect(await store.recordAll(writes)).toBeUndefined();
  expect(sentUsers().map((users) => users.length)).toEqual([25, 25, 10]);
  const [first] = (ddb.commandCalls(BatchWriteCommand)[0]?.args[0].input.RequestItems?.history ?? []) as Request[];
  const item = first?.PutRequest?.Item;
  expect(item).toMatchObject({
    pk: expect.any(String),
    sk: expect.any(String),
    changeId: 'c-0',
    expiresAt: 2_000_000_000,
  });
  expect(item).not.toHaveProperty('category');
  expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
});

test('what a call leaves unprocessed is sent again', async () => {
  ddb
    .on(BatchWriteCommand)
    .resolvesOnce({ UnprocessedItems: { history: [{ PutRequest: { Item: { pk: 'p', sk: 's' } } }] } })
    .resolves({});
  expect(await store.recordAll(writes.slice(0, 3))).toBeUndefined();
  expect(sentUsers().map((users) => users.length)).toEqual([3, 1]);
});

test('a failed call: its changes one at a time, in order; the first that fails is answered, its neighbours stored', async () => {
  const refused = Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
    name: 'ValidationException',
  });
  ddb.on(BatchWriteCommand).callsFake(({ RequestItems }) => {
    const users = (RequestItems.history as Request[]).map((r) => r.PutRequest?.Item.userId);
    if (users.includes('u32') || users.includes('u40')) throw refused;
    return {};
  });
  const failure = await store.recordAll(writes);
  expect(failure).toEqual({ index: 32, error: refused });
  // The second chunk (u25-u49) failed as a whole, then went one by one up to u32.
  const singles = sentUsers().filter((users) => users.length === 1);
  expect(singles.map(([user]) => user)).toEqual(['u25', 'u26', 'u27', 'u28', 'u29', 'u30', 'u31', 'u32']);
});

test("an erasure's deletion of the user's history reads the table's own partition consistently, every page", async () => {
  ddb
    .on(QueryCommand)
    .resolvesOnce({ Items: [{ pk: 'H#acme#alice', sk: 'a' }], LastEvaluatedKey: { pk: 'H#acme#alice', sk: 'a' } })
    .resolvesOnce({ Items: [{ pk: 'H#acme#alice', sk: 'b' }] });
  ddb.on(BatchWriteCommand).resolves({});
  expect(await store.deleteUserHistory('acme', 'alice')).toBe(2);
  const queries = ddb.commandCalls(QueryCommand).map((call) => call.args[0].input);
  expect(queries).toHaveLength(2);
  for (const query of queries) {
    expect(query).toMatchObject({ TableName: 'history', ConsistentRead: true });
    expect(query.IndexName).toBeUndefined();
  }
});

test("an erasure's deletion of entries' history reads the user's partition consistently, filtered to those entries, 100 to a Query", async () => {
  const documentIds = [null, ...Array.from({ length: 120 }, (_, i) => `doc-${i}`)];
  ddb.on(QueryCommand).resolves({ Items: [{ pk: 'H#acme#alice', sk: 'a' }] });
  ddb.on(BatchWriteCommand).resolves({});
  expect(await store.deleteEntryHistory('acme', 'alice', documentIds)).toBe(2);
  const queries = ddb.commandCalls(QueryCommand).map((call) => call.args[0].input);
  expect(queries).toHaveLength(2);
  const filtered = queries.map((query) => {
    expect(query).toMatchObject({
      TableName: 'history',
      ConsistentRead: true,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: expect.objectContaining({ ':pk': 'H#acme#alice' }),
    });
    // Not the entry index: it may not list a change stored a moment ago, by this batch or an earlier one.
    expect(query.IndexName).toBeUndefined();
    return Object.entries(query.ExpressionAttributeValues ?? {})
      .filter(([name]) => name !== ':pk')
      .map(([, pk]) => pk);
  });
  expect(filtered.map((values) => values.length)).toEqual([100, 21]);
  expect(filtered.flat()).toEqual(
    documentIds.map(
      (documentId) => historyKeys({ organizationId: 'acme', userId: 'alice', documentId }, '', '0').entryPk,
    ),
  );
  expect(queries[0]?.FilterExpression).toMatch(/^entryPk IN \(:entry0, :entry1, .*:entry99\)$/);
});
