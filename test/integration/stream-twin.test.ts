import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, test } from '@jest/globals';
import type { DynamoDBRecord } from 'aws-lambda';
import { InFlight } from '#local/in-flight.js';
import { onFailureMessage, type StreamBatchFailure } from '#local/streams/stream-poller.js';
import { type StreamTwinOptions, startStreamTwin } from '#local/streams/stream-twin.js';
import { useTestDynamo } from '../support/dynamo.js';

const dynamo = useTestDynamo({ tables: 'own', freshTablesPerTest: true });

beforeEach(async () => {});

const put = (sk: string) =>
  dynamo.doc.send(new PutCommand({ TableName: dynamo.tables.config, Item: { pk: 'p', sk, value: sk } }));

const twin = (
  handler: (records: DynamoDBRecord[]) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>,
  options: Partial<StreamTwinOptions> = {},
) =>
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
    ...options,
  });

/** An on-failure destination that keeps what it is sent in `failures`. */
const collect = (failures: StreamBatchFailure[]) => async (failure: StreamBatchFailure) => {
  failures.push(failure);
};

const skOf = (record: DynamoDBRecord) => record.dynamodb?.Keys?.sk?.S as string;
const sequenceOf = (record: DynamoDBRecord) => record.dynamodb?.SequenceNumber as string;

/** Resolves when `done()` holds, polling; the twin works on its own timers. */
const until = async (done: () => boolean) => {
  for (let i = 0; i < 500 && !done(); i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(done()).toBe(true);
};

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

  test('a record the function always fails on: the batch is halved until it is alone, the others go through, then it is described to the on-failure destination and the stream moves on', async () => {
    const handled: string[] = [];
    const invocations: string[][] = [];
    const failures: StreamBatchFailure[] = [];
    const poison = new Map<string, string>(); // sk -> sequence number
    const streams = await twin(
      async (records) => {
        invocations.push(records.map(skOf));
        // The publisher's way: every record failing makes the invocation an error.
        const bad = records.find((record) => skOf(record) === 'c');
        if (bad) {
          poison.set('c', sequenceOf(bad));
          throw new Error('cannot handle c');
        }
        handled.push(...records.map(skOf));
        return { batchItemFailures: [] };
      },
      {
        maxRetryAttempts: 3,
        bisectOnError: true,
        onFailure: collect(failures),
      },
    );
    try {
      for (const sk of ['a', 'b', 'c', 'd', 'e']) await put(sk);
      await until(() => failures.length === 1 && handled.includes('e'));
      await put('f');
      await until(() => handled.includes('f'));
      expect(handled).toEqual(['a', 'b', 'd', 'e', 'f']);
      expect(failures).toEqual([
        expect.objectContaining({
          functionName: 'publisher',
          shardId: expect.any(String),
          streamArn: expect.stringContaining(`table/${dynamo.tables.config}/stream/`),
          startSequenceNumber: poison.get('c'),
          endSequenceNumber: poison.get('c'),
          batchSize: 1,
          attempts: 4,
          approximateArrivalOfFirstRecord: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        }),
      ]);
      // Halved on each error: c was handed over alone before it was given up on.
      expect(invocations.filter((batch) => batch.length === 1 && batch[0] === 'c').length).toBeGreaterThan(0);
    } finally {
      await streams.close();
    }
  });

  test('a record reported failed in every partial batch response: retried from it, then described with the records after it', async () => {
    const handled: string[] = [];
    const failures: StreamBatchFailure[] = [];
    const streams = await twin(
      async (records) => {
        const index = records.findIndex((record) => skOf(record) === 'b');
        const ok = index < 0 ? records : records.slice(0, index);
        handled.push(...ok.map(skOf));
        return {
          batchItemFailures: (index < 0 ? [] : records.slice(index)).map((r) => ({ itemIdentifier: sequenceOf(r) })),
        };
      },
      {
        maxRetryAttempts: 2,
        bisectOnError: true,
        onFailure: collect(failures),
      },
    );
    try {
      for (const sk of ['a', 'b', 'c']) await put(sk);
      await until(() => failures.length === 1);
      await put('d');
      await until(() => handled.includes('d'));
      expect(handled).toEqual(['a', 'd']);
      expect(failures[0]).toMatchObject({ batchSize: 2, attempts: 3 });
    } finally {
      await streams.close();
    }
  });

  test('without a retry limit a failing record is handed over until it succeeds, and nothing is given up on', async () => {
    let calls = 0;
    const failures: StreamBatchFailure[] = [];
    const handled: string[] = [];
    const streams = await twin(
      async (records) => {
        calls += 1;
        if (calls <= 5) throw new Error('not yet');
        handled.push(...records.map(skOf));
        return { batchItemFailures: [] };
      },
      {
        onFailure: collect(failures),
      },
    );
    try {
      await put('a');
      await until(() => handled.includes('a'));
      expect(calls).toBe(6);
      expect(failures).toEqual([]);
    } finally {
      await streams.close();
    }
  });

  test("the on-failure message has the shape of Lambda's for a stream batch: the condition and DDBStreamBatchInfo", () => {
    const failure: StreamBatchFailure = {
      functionName: 'publisher',
      attempts: 11,
      streamArn: 'arn:aws:dynamodb:local:000000000000:table/config/stream/2026-01-01T00:00:00.000',
      shardId: 'shardId-1',
      startSequenceNumber: '100',
      endSequenceNumber: '100',
      approximateArrivalOfFirstRecord: '2026-01-01T00:00:00.000Z',
      approximateArrivalOfLastRecord: '2026-01-01T00:00:00.000Z',
      batchSize: 1,
    };
    expect(onFailureMessage(failure, 'local', '000000000000')).toEqual({
      requestContext: {
        requestId: expect.any(String),
        functionArn: 'arn:aws:lambda:local:000000000000:function:publisher',
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: 11,
      },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      version: '1.0',
      timestamp: expect.any(String),
      DDBStreamBatchInfo: {
        shardId: 'shardId-1',
        startSequenceNumber: '100',
        endSequenceNumber: '100',
        approximateArrivalOfFirstRecord: '2026-01-01T00:00:00.000Z',
        approximateArrivalOfLastRecord: '2026-01-01T00:00:00.000Z',
        batchSize: 1,
        streamArn: failure.streamArn,
      },
    });
  });
  test('while the API answers a request, records wait for it to end, and never longer than the bound', async () => {
    const seen: string[] = [];
    const handled = async (records: DynamoDBRecord[]) => {
      seen.push(...records.map(skOf));
      return { batchItemFailures: [] };
    };
    const inFlight = new InFlight();
    let finish = () => {};
    const request = inFlight.track(new Promise<void>((resolve) => (finish = resolve)));
    const streams = await twin(handled, { yieldTo: inFlight });
    try {
      await put('during');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(seen).toEqual([]);
      finish();
      await request;
      await until(() => seen.includes('during'));
    } finally {
      await streams.close();
    }

    // A request that never ends holds the records back for maxYieldMs at most.
    const bounded: string[] = [];
    const busy = new InFlight();
    void busy.track(new Promise<void>(() => {}));
    const started = Date.now();
    const again = await twin(
      async (records) => {
        bounded.push(...records.map(skOf));
        return { batchItemFailures: [] };
      },
      { yieldTo: busy, maxYieldMs: 200 },
    );
    try {
      await put('steady');
      await until(() => bounded.includes('steady'));
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await again.close();
    }
  });
});
