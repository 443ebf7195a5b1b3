import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, expect, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoMigrationEntries } from '#shared/migration/copies.js';
import type { MarkedEntry } from '#shared/preferences/store.js';

// A migration's copy (shared/migration/copies.ts): one transaction of the target's put and the
// source's stamp; a refused condition or a concurrent transaction is "not written" (a later pass
// decides again), anything else is an error of the run.

const ddb = mockClient(DynamoDBDocumentClient);
const entries = new DynamoMigrationEntries(
  DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local' })),
  'config',
);
beforeEach(() => {
  ddb.reset();
});

const source: MarkedEntry = {
  organizationId: 'org-1',
  userId: 'u1',
  documentId: 'doc-a',
  scope: 'document',
  config: { inbox: 'ALL' },
  updatedAt: '2026-03-01T00:00:00.000Z',
  updatedBy: 'ak_1',
  version: 3,
};
const copy: MarkedEntry = {
  ...source,
  documentId: 'doc-b',
  version: 1,
  migration: { migrationId: 'm1', run: 'r1', page: 1, version: 1 },
};
const change = { cause: 'migration' as const, changedBy: 'migration:m1', changedAt: '2026-03-02T00:00:00.000Z' };
const cancelled = (...codes: string[]) =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

test('the put of the copy and the stamp of the source as read, in one transaction', async () => {
  ddb.on(TransactWriteCommand).resolves({});
  expect(await entries.copyEntryIf(copy, null, source, change)).toBe(true);
  const [put, stamp] = ddb.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems ?? [];
  expect(put?.Put).toMatchObject({
    TableName: 'config',
    Item: { pk: 'DOC#org-1#doc-b', sk: 'u1', inbox: 'ALL', migrationId: 'm1', changedBy: 'migration:m1' },
    ConditionExpression: 'attribute_not_exists(pk)',
  });
  expect(stamp?.Update).toMatchObject({
    TableName: 'config',
    Key: { pk: 'DOC#org-1#doc-a', sk: 'u1' },
    // The stamp stampForDelete writes (changeCause, changedBy, changedAt, changeEvidence), on the version and time read.
    UpdateExpression: 'SET #a0 = :v0, #a1 = :v1, #a2 = :v2, #a3 = :v3',
    ConditionExpression: '#a4 = :v4 AND #a5 = :v5',
    ExpressionAttributeNames: {
      '#a1': 'changedBy',
      '#a2': 'changedAt',
      '#a3': 'changeEvidence',
      '#a4': 'version',
      '#a5': 'updatedAt',
    },
    ExpressionAttributeValues: {
      ':v4': 3,
      ':v5': source.updatedAt,
      ':v1': 'migration:m1',
      ':v2': change.changedAt,
      ':v3': JSON.stringify({ via: 'migration', migrationId: 'm1' }),
    },
  });
});

test.each([
  ['the source changed or is gone', ['None', 'ConditionalCheckFailed']],
  ['the target changed', ['ConditionalCheckFailed', 'None']],
  ['another transaction on the same items', ['TransactionConflict', 'None']],
])('%s: not written', async (_name, codes) => {
  ddb.on(TransactWriteCommand).rejects(cancelled(...codes));
  expect(await entries.copyEntryIf(copy, 1, source, change)).toBe(false);
});

test.each([
  ['throttled', cancelled('ThrottlingError', 'None')],
  ['refused', Object.assign(new Error('bad'), { name: 'ValidationException' })],
])('%s: an error of the run', async (_name, error) => {
  ddb.on(TransactWriteCommand).rejects(error);
  await expect(entries.copyEntryIf(copy, 1, source, change)).rejects.toBe(error);
});
