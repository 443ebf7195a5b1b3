import { type BatchStatementErrorCodeEnum, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchExecuteStatementCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { beforeEach, expect, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoErasureEntryStore } from '#shared/preferences/dynamo-erasure-entries.js';
import type { UnchangedEntry } from '#shared/preferences/store.js';

// The store's batched stamps and deletes (a migration's or an erasure's page): PartiQL UPDATEs
// and DELETEs 25 to a call; a failed condition leaves the entry, anything else the batch did not
// apply is tried once alone as the conditional UpdateItem or DeleteItem, whose answer is the entry's.

const ddb = mockClient(DynamoDBDocumentClient);
const store = new DynamoErasureEntryStore(
  DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local' })),
  'config',
);
beforeEach(() => {
  ddb.reset();
});

const change = { cause: 'erasure' as const, changedBy: 'erasure:e1', changedAt: '2026-03-02T00:00:00.000Z' };
const entries: UnchangedEntry[] = Array.from({ length: 30 }, (_, i) => ({
  organizationId: 'org-1',
  userId: `u${i}`,
  documentId: 'doc-a',
  version: 2,
  updatedAt: '2026-03-01T00:00:00.000Z',
}));
const failed = (Code: BatchStatementErrorCodeEnum) => ({ Error: { Code, Message: Code } });
const conditionFailed = Object.assign(new Error('The conditional request failed'), {
  name: 'ConditionalCheckFailedException',
});

test('30 entries: two calls of 25 and 5 DELETEs, each with its own conditions', async () => {
  ddb.on(BatchExecuteStatementCommand).callsFake(({ Statements }) => ({ Responses: Statements.map(() => ({})) }));
  expect(await store.deleteEntriesIf(entries, change)).toEqual(entries);
  const calls = ddb.commandCalls(BatchExecuteStatementCommand).map((call) => call.args[0].input.Statements ?? []);
  expect(calls.map((statements) => statements.length)).toEqual([25, 5]);
  expect(calls[0]?.[0]).toEqual({
    Statement:
      'DELETE FROM "config" WHERE "pk" = ? AND "sk" = ? AND "version" = ? AND "updatedAt" = ? AND "changedBy" = ? AND "changedAt" = ?',
    Parameters: ['DOC#org-1#doc-a', 'u0', 2, '2026-03-01T00:00:00.000Z', 'erasure:e1', '2026-03-02T00:00:00.000Z'],
  });
  expect(ddb.commandCalls(DeleteCommand)).toHaveLength(0);
});

test('a failed condition leaves its entry; a throttled statement is deleted alone; a missing answer too', async () => {
  ddb.on(BatchExecuteStatementCommand).resolves({
    Responses: [
      failed('ConditionalCheckFailed'),
      failed('ProvisionedThroughputExceeded'),
      failed('InternalServerError'),
      {},
      // No answer for the last two statements of the first call.
    ],
  });
  // Alone: u1 is deleted, u2's condition fails there.
  ddb.on(DeleteCommand).callsFake(({ Key }) => {
    if (Key.sk === 'u2') throw conditionFailed;
    return {};
  });
  const deleted = await store.deleteEntriesIf(entries.slice(0, 6), change);
  expect(deleted.map((entry) => entry.userId)).toEqual(['u1', 'u3', 'u4', 'u5']);
  const alone = ddb.commandCalls(DeleteCommand).map((call) => call.args[0].input);
  expect(alone.map((input) => input.Key?.sk).sort()).toEqual(['u1', 'u2', 'u4', 'u5']);
  expect(alone[0]).toMatchObject({
    TableName: 'config',
    ConditionExpression: '#a0 = :v0 AND #a1 = :v1 AND #a2 = :v2 AND #a3 = :v3',
    ExpressionAttributeNames: { '#a0': 'version', '#a1': 'updatedAt', '#a2': 'changedBy', '#a3': 'changedAt' },
  });
});

test('a failed call: each entry is tried alone', async () => {
  ddb.on(BatchExecuteStatementCommand).rejects(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
  ddb.on(DeleteCommand).resolves({});
  expect(await store.deleteEntriesIf(entries.slice(0, 3), change)).toEqual(entries.slice(0, 3));
  expect(ddb.commandCalls(DeleteCommand)).toHaveLength(3);
});

test('an error of a single delete other than its condition is the run’s error', async () => {
  ddb.on(BatchExecuteStatementCommand).resolves({ Responses: [failed('InternalServerError')] });
  ddb.on(DeleteCommand).rejects(Object.assign(new Error('down'), { name: 'InternalServerError' }));
  await expect(store.deleteEntriesIf(entries.slice(0, 1), change)).rejects.toThrow('down');
});

test('stamps: a failed condition leaves its entry without a second try; a throttled stamp is tried alone', async () => {
  ddb.on(BatchExecuteStatementCommand).resolves({
    Responses: [failed('ConditionalCheckFailed'), failed('ThrottlingError'), {}],
  });
  ddb.on(UpdateCommand).resolves({});
  const stamped = await store.stampForDelete(entries.slice(0, 3), change);
  expect(stamped.map((entry) => entry.userId)).toEqual(['u1', 'u2']);
  const alone = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input.Key?.sk);
  expect(alone).toEqual(['u1']);
  expect(ddb.commandCalls(BatchExecuteStatementCommand)).toHaveLength(1);
});
