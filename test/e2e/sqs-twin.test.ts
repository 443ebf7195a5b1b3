import { createHash } from 'node:crypto';
import { appendFile, copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  QueueDoesNotExist,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, test } from '@jest/globals';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type LocalSqs, startLocalSqs } from '#local/queue/local-sqs.js';
import type { LocalQueue, QueueConsumer } from '#local/queue/queue.js';

// The SQS twin through the real SDK v3 SQSClient (AWS JSON 1.0 protocol), delivering to an
// injected consumer the way Lambda's SQS event source does.
interface Delivery {
  event: SQSEvent;
  context: Context;
  remaining: number;
  at: number;
}

let sqs: LocalSqs | undefined;
let client: SQSClient | undefined;
const deliveries: Delivery[] = [];

afterEach(async () => {
  client?.destroy();
  await sqs?.close();
  sqs = undefined;
  deliveries.length = 0;
});

const recording =
  (answer: (record: SQSRecord[], n: number) => Promise<SQSBatchResponse | undefined>): QueueConsumer =>
  async (event, context) => {
    deliveries.push({ event, context, remaining: context.getRemainingTimeInMillis(), at: Date.now() });
    return answer(event.Records, deliveries.length);
  };

const setUp = async ({
  maxReceiveCount = 3,
  retryDelayMs = 150,
  batchSize = 1,
  timeoutMs = 5_000,
  consumer,
  persistFile,
}: {
  maxReceiveCount?: number;
  retryDelayMs?: number;
  batchSize?: number;
  timeoutMs?: number;
  consumer?: QueueConsumer;
  persistFile?: string;
} = {}) => {
  sqs = await startLocalSqs({ region: 'local', ...(persistFile ? { persistFile } : {}) });
  const dlq = sqs.createQueue('work-dlq');
  const queue = sqs.createQueue('work', { deadLetter: { queue: dlq, maxReceiveCount }, retryDelayMs });
  if (consumer) queue.attach({ handler: consumer, functionName: 'consumer-fn', batchSize, timeoutMs, concurrency: 1 });
  client = new SQSClient({
    endpoint: sqs.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  return { queue, dlq, client };
};

const attributes = async (c: SQSClient, queue: LocalQueue) =>
  (await c.send(new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: ['All'] }))).Attributes ?? {};

describe('the SQS API over the SDK', () => {
  test('GetQueueUrl, SendMessage and a delivery with the real SQSEvent record shape', async () => {
    const { queue, client } = await setUp({ consumer: recording(async () => undefined), timeoutMs: 60_000 });
    const { QueueUrl } = await client.send(new GetQueueUrlCommand({ QueueName: 'work' }));
    expect(QueueUrl).toBe(`${sqs?.endpoint}/000000000000/work`);
    const body = JSON.stringify({ migrationId: 'm-1', note: 'ü 🎉' });
    const sent = await client.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: body,
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'start' } },
      }),
    );
    // The SDK itself checks MD5OfMessageBody; the attribute digest is SQS's documented one.
    expect(sent.MD5OfMessageBody).toBe(createHash('md5').update(body).digest('hex'));
    expect(sent.MD5OfMessageAttributes).toMatch(/^[0-9a-f]{32}$/);
    await queue.whenIdle();

    expect(deliveries).toHaveLength(1);
    const [{ event, context, remaining } = {} as never] = deliveries;
    expect(event.Records).toHaveLength(1);
    const record = event.Records[0] as SQSRecord;
    expect(record).toEqual({
      messageId: sent.MessageId,
      receiptHandle: expect.any(String),
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: expect.stringMatching(/^\d{13}$/),
        SenderId: expect.any(String),
        ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d{13}$/),
      },
      messageAttributes: {
        kind: { dataType: 'String', stringValue: 'start', stringListValues: [], binaryListValues: [] },
      },
      md5OfBody: sent.MD5OfMessageBody,
      md5OfMessageAttributes: sent.MD5OfMessageAttributes,
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:local:000000000000:work',
      awsRegion: 'local',
    });
    expect(context.functionName).toBe('consumer-fn');
    expect(context.awsRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(remaining).toBeGreaterThan(59_000);
    expect(remaining).toBeLessThanOrEqual(60_000);
  });

  test("MD5OfMessageAttributes follows SQS's documented algorithm (sorted names, binary and string values)", async () => {
    const { client, queue } = await setUp();
    const sent = await client.send(
      new SendMessageCommand({
        QueueUrl: queue.url,
        MessageBody: 'x',
        MessageAttributes: {
          b: { DataType: 'Number', StringValue: '42' },
          a: { DataType: 'Binary', BinaryValue: Buffer.from([1, 2, 3]) },
        },
      }),
    );
    // Per attribute, in name order: name, data type, transport byte (1 string, 2 binary), value; each length-prefixed.
    const field = (data: Buffer) => {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(data.length);
      return [length, data];
    };
    const expected = createHash('md5')
      .update(
        Buffer.concat([
          ...field(Buffer.from('a')),
          ...field(Buffer.from('Binary')),
          Buffer.from([2]),
          ...field(Buffer.from([1, 2, 3])),
          ...field(Buffer.from('b')),
          ...field(Buffer.from('Number')),
          Buffer.from([1]),
          ...field(Buffer.from('42')),
        ]),
      )
      .digest('hex');
    expect(sent.MD5OfMessageAttributes).toBe(expected);
  });

  test('SendMessageBatch, GetQueueAttributes counts and QueueDoesNotExist', async () => {
    const { client, queue } = await setUp();
    const batch = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: [
          { Id: 'a', MessageBody: 'one' },
          { Id: 'b', MessageBody: 'two' },
          { Id: 'c', MessageBody: 'later', DelaySeconds: 60 },
        ],
      }),
    );
    expect(batch.Successful?.map((s) => s.Id)).toEqual(['a', 'b', 'c']);
    expect(batch.Failed ?? []).toEqual([]);
    expect(await attributes(client, queue)).toMatchObject({
      ApproximateNumberOfMessages: '2',
      ApproximateNumberOfMessagesNotVisible: '0',
      ApproximateNumberOfMessagesDelayed: '1',
      QueueArn: 'arn:aws:sqs:local:000000000000:work',
      RedrivePolicy: JSON.stringify({
        deadLetterTargetArn: 'arn:aws:sqs:local:000000000000:work-dlq',
        maxReceiveCount: 3,
      }),
    });
    const only = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    expect(only.Attributes).toEqual({ ApproximateNumberOfMessages: '2' });
    await expect(
      client.send(new SendMessageCommand({ QueueUrl: `${sqs?.endpoint}/000000000000/nope`, MessageBody: 'x' })),
    ).rejects.toBeInstanceOf(QueueDoesNotExist);
    await expect(client.send(new GetQueueUrlCommand({ QueueName: 'nope' }))).rejects.toBeInstanceOf(QueueDoesNotExist);
    await expect(
      client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'x', DelaySeconds: 901 })),
    ).rejects.toThrow(/DelaySeconds/);
  });
});

describe('delivery semantics', () => {
  test('DelaySeconds holds the message back until its time', async () => {
    const { client, queue } = await setUp({ consumer: recording(async () => undefined) });
    const sentAt = Date.now();
    await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'later', DelaySeconds: 1 }));
    expect((await attributes(client, queue)).ApproximateNumberOfMessagesDelayed).toBe('1');
    await queue.whenIdle();
    expect(deliveries).toHaveLength(1);
    expect((deliveries[0]?.at ?? 0) - sentAt).toBeGreaterThanOrEqual(950);
  });

  test('a failed item is retried after the visibility delay with a higher receive count', async () => {
    const { client, queue } = await setUp({
      retryDelayMs: 300,
      consumer: recording(async (records, n) =>
        n === 1 ? { batchItemFailures: [{ itemIdentifier: records[0]?.messageId as string }] } : undefined,
      ),
    });
    const { MessageId } = await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'retry me' }));
    await queue.whenIdle();
    expect(deliveries).toHaveLength(2);
    const [first, second] = deliveries.map((d) => d.event.Records[0] as SQSRecord);
    expect([first?.messageId, second?.messageId]).toEqual([MessageId, MessageId]);
    expect([first?.attributes.ApproximateReceiveCount, second?.attributes.ApproximateReceiveCount]).toEqual(['1', '2']);
    expect(second?.receiptHandle).not.toBe(first?.receiptHandle);
    expect(second?.attributes.ApproximateFirstReceiveTimestamp).toBe(
      first?.attributes.ApproximateFirstReceiveTimestamp,
    );
    expect((deliveries[1]?.at ?? 0) - (deliveries[0]?.at ?? 0)).toBeGreaterThanOrEqual(290);
  });

  test('partial batch failure: only the reported items come back', async () => {
    const { client, queue } = await setUp({
      batchSize: 10,
      consumer: recording(async (records, n) =>
        n === 1 ? { batchItemFailures: [{ itemIdentifier: records[1]?.messageId as string }] } : undefined,
      ),
    });
    await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: ['a', 'b', 'c'].map((body) => ({ Id: body, MessageBody: body })),
      }),
    );
    await queue.whenIdle();
    expect(deliveries.map((d) => d.event.Records.map((r) => r.body))).toEqual([['a', 'b', 'c'], ['b']]);
  });

  test('a thrown error fails every record of the batch', async () => {
    const { client, queue } = await setUp({
      batchSize: 10,
      consumer: recording(async (_, n) => {
        if (n === 1) throw new Error('boom');
        return undefined;
      }),
    });
    await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: ['a', 'b'].map((body) => ({ Id: body, MessageBody: body })),
      }),
    );
    await queue.whenIdle();
    expect(deliveries.map((d) => d.event.Records.map((r) => [r.body, r.attributes.ApproximateReceiveCount]))).toEqual([
      [
        ['a', '1'],
        ['b', '1'],
      ],
      [
        ['a', '2'],
        ['b', '2'],
      ],
    ]);
  });

  test('an unknown itemIdentifier in the response fails the whole batch, as Lambda does', async () => {
    const { client, queue } = await setUp({
      batchSize: 10,
      consumer: recording(async (_, n) =>
        n === 1 ? { batchItemFailures: [{ itemIdentifier: 'not-in-batch' }] } : undefined,
      ),
    });
    await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'x' }));
    await queue.whenIdle();
    expect(deliveries).toHaveLength(2);
  });

  test('a consumer that outruns its timeout fails the batch', async () => {
    const { client, queue } = await setUp({
      timeoutMs: 100,
      consumer: recording(async (_, n) => {
        if (n === 1) await new Promise((resolve) => setTimeout(resolve, 300));
        return undefined;
      }),
    });
    await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'slow' }));
    await queue.whenIdle();
    expect(deliveries).toHaveLength(2);
    expect(deliveries[0]?.remaining).toBeLessThanOrEqual(100);
  });

  test('after maxReceiveCount failed receives the message moves to the dead-letter queue', async () => {
    const { client, queue, dlq } = await setUp({
      maxReceiveCount: 3,
      retryDelayMs: 20,
      consumer: recording(async () => {
        throw new Error('always fails');
      }),
    });
    const { MessageId } = await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'poison' }));
    await queue.whenIdle();
    expect(deliveries.map((d) => d.event.Records[0]?.attributes.ApproximateReceiveCount)).toEqual(['1', '2', '3']);
    expect(dlq.list()).toEqual([
      expect.objectContaining({
        messageId: MessageId,
        body: 'poison',
        receiveCount: 3,
        deadLetterReason: 'always fails',
      }),
    ]);
    expect((await attributes(client, dlq)).ApproximateNumberOfMessages).toBe('1');
    expect((await attributes(client, queue)).ApproximateNumberOfMessages).toBe('0');
    // Nothing delivers from the dead-letter queue.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(deliveries).toHaveLength(3);
  });
});

describe('persistence', () => {
  test('queued and dead-lettered messages survive a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sqs-twin-'));
    try {
      const persistFile = join(dir, 'queues.json');
      const first = await setUp({
        persistFile,
        maxReceiveCount: 1,
        consumer: recording(async (records) =>
          records[0]?.body === 'bad' ? { batchItemFailures: [{ itemIdentifier: records[0].messageId }] } : undefined,
        ),
      });
      await first.client.send(new SendMessageCommand({ QueueUrl: first.queue.url, MessageBody: 'bad' }));
      await first.queue.whenIdle();
      const waiting = await first.client.send(
        new SendMessageCommand({ QueueUrl: first.queue.url, MessageBody: 'waiting', DelaySeconds: 900 }),
      );
      first.client.destroy();
      await sqs?.close();

      const second = await setUp({ persistFile });
      expect(await sqs?.restore()).toBe(2);
      expect(second.queue.list().map((m) => [m.messageId, m.body])).toEqual([[waiting.MessageId, 'waiting']]);
      expect(second.dlq.list().map((m) => [m.body, m.receiveCount])).toEqual([['bad', 1]]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  // A crash is played by copying the file at a given moment (what a killed process leaves on
  // disk) and opening a second twin on the copy.
  const onDisk = async (file: string, crashed: string, torn = '') => {
    await copyFile(file, crashed);
    await appendFile(crashed, torn);
    const after = await startLocalSqs({ region: 'local', persistFile: crashed });
    const dlq = after.createQueue('work-dlq');
    const queue = after.createQueue('work', { deadLetter: { queue: dlq, maxReceiveCount: 3 } });
    return { after, queue, restored: await after.restore() };
  };

  test('a message is on disk by the time SendMessage answers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sqs-twin-'));
    try {
      const persistFile = join(dir, 'queues.json');
      const { client, queue } = await setUp({ persistFile });
      const sent = await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'acknowledged' }));
      const crash = await onDisk(persistFile, join(dir, 'crashed.json'));
      try {
        expect(crash.restored).toBe(1);
        expect(crash.queue.list().map((m) => [m.messageId, m.body])).toEqual([[sent.MessageId, 'acknowledged']]);
      } finally {
        await crash.after.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a write cut short by a crash is skipped: the messages before it are restored', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sqs-twin-'));
    try {
      const persistFile = join(dir, 'queues.json');
      const { client, queue } = await setUp({ persistFile });
      for (const body of ['one', 'two']) {
        await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: body }));
      }
      const crash = await onDisk(persistFile, join(dir, 'crashed.json'), '{"queue":"work","put":{"messageId":"th');
      try {
        expect(crash.queue.list().map((m) => m.body)).toEqual(['one', 'two']);
      } finally {
        await crash.after.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('after a crash a delivered message stays deleted, and an interrupted delivery counted as a receive', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sqs-twin-'));
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let stuckStarted = () => {};
    const stuck = new Promise<void>((resolve) => {
      stuckStarted = resolve;
    });
    try {
      const persistFile = join(dir, 'queues.json');
      const { client, queue } = await setUp({
        persistFile,
        consumer: recording(async (records) => {
          if (records[0]?.body === 'stuck') {
            stuckStarted();
            await released;
          }
          return undefined;
        }),
      });
      await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'done' }));
      await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'stuck' }));
      // One delivery at a time: 'done' has been deleted once 'stuck' is with the consumer.
      await stuck;
      await queue.persisted();
      const crash = await onDisk(persistFile, join(dir, 'crashed.json'));
      release();
      try {
        expect(crash.queue.list().map((m) => [m.body, m.receiveCount])).toEqual([['stuck', 1]]);
        const redelivered: SQSRecord[] = [];
        crash.queue.attach({
          handler: async (event) => {
            redelivered.push(...event.Records);
          },
        });
        await crash.queue.whenIdle();
        expect(redelivered.map((r) => [r.body, r.attributes.ApproximateReceiveCount])).toEqual([['stuck', '2']]);
      } finally {
        await crash.after.close();
      }
    } finally {
      release();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
