import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { expect, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { entryTableKey } from '#shared/preferences/keys.js';

type Key = { pk: string; sk: string };
const TABLE = 'config-table';

test('keys left unprocessed by a throttled batch read are read again; every user gets both layers', async () => {
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local' }));
  const ddb = mockClient(doc);
  const seen = new Set<string>();
  // Answers every key as an entry; on its first sight of a key in the second half, leaves it unprocessed.
  ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: Key[] }> }) => {
    const keys = input.RequestItems[TABLE]?.Keys ?? [];
    const later = keys.filter((key) => key.sk >= 'u5' && !seen.has(key.pk + key.sk));
    for (const key of later) seen.add(key.pk + key.sk);
    const answered = keys.filter((key) => !later.includes(key));
    return {
      Responses: {
        [TABLE]: answered.map((key) => ({
          ...key,
          organizationId: 'o',
          userId: key.sk,
          ...(key.pk.startsWith('DOC#') ? { documentId: 'd', inbox: 'NONE' } : { email: 'ALL' }),
          updatedAt: '2026-01-01T00:00:00.000Z',
          updatedBy: 'ak',
          version: 1,
        })),
      },
      ...(later.length ? { UnprocessedKeys: { [TABLE]: { Keys: later, ConsistentRead: true } } } : {}),
    };
  });
  const store = new DynamoPreferenceStore(doc, TABLE);
  const userIds = Array.from({ length: 100 }, (_, i) => `u${i}`);
  const layers = await store.getUserLayers('o', 'd', userIds);

  expect([...layers.keys()]).toEqual(userIds);
  for (const userId of userIds) {
    expect(layers.get(userId)?.document?.config).toEqual({ inbox: 'NONE' });
    expect(layers.get(userId)?.organization?.config).toEqual({ email: 'ALL' });
  }
  const requests = ddb
    .commandCalls(BatchGetCommand)
    .map((call) => call.args[0].input.RequestItems?.[TABLE]?.Keys ?? []);
  // 200 keys: two chunks of 100, then only the unprocessed keys again.
  expect(requests.slice(0, 2).map((keys) => keys.length)).toEqual([100, 100]);
  expect(requests.length).toBeGreaterThan(2);
  expect(requests[0]).toContainEqual(entryTableKey({ organizationId: 'o', userId: 'u0', documentId: 'd' }));
});

test('a reset of an entry that is not stored makes one call; one refused for a newer channel retries channel by channel', async () => {
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local' }));
  const ddb = mockClient(doc);
  const refused = (item?: Record<string, unknown>) =>
    Object.assign(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }), {
      ...(item ? { Item: item } : {}),
    });
  const store = new DynamoPreferenceStore(doc, TABLE);
  const key = { organizationId: 'o', userId: 'u', documentId: 'd' };
  const meta = { updatedAt: '2026-01-02T00:00:00.000Z', updatedBy: 'ak' };

  ddb.on(UpdateCommand).rejects(refused());
  await store.resetChannels(key, ['inbox', 'email', 'slack'], meta);
  expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
  expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');

  // The entry is there, one channel written after the reset's time: each channel goes on its own.
  ddb.reset();
  ddb.on(UpdateCommand).rejects(refused({ ...entryTableKey(key), inbox: { S: 'NONE' } }));
  await store.resetChannels(key, ['inbox', 'email', 'slack'], meta);
  expect(ddb.commandCalls(UpdateCommand)).toHaveLength(4);
});
