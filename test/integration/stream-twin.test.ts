import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import type { DynamoDBRecord } from 'aws-lambda';
import { startStreamTwin } from '#local/streams/stream-twin.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';

let dynamo: TestDynamo;

beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(async () => {
  await dynamo.close();
});
beforeEach(async () => {
  await dynamo.createTables();
});

const put = (sk: string) =>
  dynamo.doc.send(new PutCommand({ TableName: dynamo.tables.config, Item: { pk: 'p', sk, value: sk } }));

const twin = (handler: (records: DynamoDBRecord[]) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>) =>
  startStreamTwin({
    dynamo: dynamo.client,
    endpoint: dynamo.endpoint,
    region: 'local',
    credentials: dynamo.credentials,
    tables: [dynamo.tables.config],
    handler: (event) => handler(event.Records),
    functionName: 'publisher',
    timeoutMs: 5_000,
    pollMs: 20,
    retryDelayMs: 20,
  });

describe("the twin of a table's stream and its event source mapping", () => {
  test('records in order; a partial batch failure hands the failed record and the later ones over again', async () => {
    const seen: string[] = [];
    let failedOnce = false;
    const streams = await twin(async (records) => {
      const failures: { itemIdentifier: string }[] = [];
      for (const record of records) {
        const sk = record.dynamodb?.Keys?.sk?.S as string;
        if (sk === 'b' && !failedOnce) {
          failedOnce = true;
          failures.push({ itemIdentifier: record.dynamodb?.SequenceNumber as string });
          break;
        }
        seen.push(`${record.eventName}:${sk}`);
        expect(record.eventSourceARN).toContain(`table/${dynamo.tables.config}/stream/`);
      }
      // What follows the failure is reported too, as the publisher does.
      const index = records.findIndex((r) => r.dynamodb?.SequenceNumber === failures[0]?.itemIdentifier);
      if (index >= 0) {
        for (const r of records.slice(index + 1))
          failures.push({ itemIdentifier: r.dynamodb?.SequenceNumber as string });
      }
      return { batchItemFailures: failures };
    });
    try {
      for (const sk of ['a', 'b', 'c']) await put(sk);
      await streams.caughtUp();
      await streams.caughtUp();
      expect(seen).toEqual(['INSERT:a', 'INSERT:b', 'INSERT:c']);
      expect(failedOnce).toBe(true);
    } finally {
      await streams.close();
    }
  });
});
