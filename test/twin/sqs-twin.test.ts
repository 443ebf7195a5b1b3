import { createHash } from 'node:crypto';
import { appendFile, copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  paginateListQueues,
  QueueDoesNotExist,
  ReceiptHandleIsInvalid,
  ReceiveMessageCommand,
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
  sqs = await startLocalSqs({ accessKeyId: 'local', region: 'local', ...(persistFile ? { persistFile } : {}) });
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

describe('listing and reading queues, as `npm run inspect` does', () => {
  test('ListQueues: every queue, by name prefix, in pages', async () => {
    const { client } = await setUp();
    sqs?.createQueue('other');
    const urls = (await client.send(new ListQueuesCommand({}))).QueueUrls;
    expect(urls).toEqual(['other', 'work', 'work-dlq'].map((name) => `${sqs?.endpoint}/000000000000/${name}`));
    expect((await client.send(new ListQueuesCommand({ QueueNamePrefix: 'work' }))).QueueUrls).toEqual([
      `${sqs?.endpoint}/000000000000/work`,
      `${sqs?.endpoint}/000000000000/work-dlq`,
    ]);
    expect((await client.send(new ListQueuesCommand({ QueueNamePrefix: 'none' }))).QueueUrls ?? []).toEqual([]);
    const pages: string[][] = [];
    for await (const page of paginateListQueues({ client }, { MaxResults: 2 })) pages.push(page.QueueUrls ?? []);
    expect(pages.map((page) => page.length)).toEqual([2, 1]);
    await expect(client.send(new ListQueuesCommand({ MaxResults: 0 }))).rejects.toThrow(/MaxResults/);
    await expect(client.send(new ListQueuesCommand({ MaxResults: 1, NextToken: 'zzzz' }))).rejects.toThrow(/NextToken/);
  });

  test('ReceiveMessage with VisibilityTimeout 0 reads dead letters without taking them', async () => {
    const { client, queue, dlq } = await setUp({
      maxReceiveCount: 1,
      consumer: recording(async () => {
        throw new Error('always fails');
      }),
    });
    const { MessageId } = await client.send(
      new SendMessageCommand({
        QueueUrl: queue.url,
        MessageBody: '{"migrationId":"m-1"}',
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'start' } },
      }),
    );
    await queue.whenIdle();
    const read = () =>
      client.send(
        new ReceiveMessageCommand({
          QueueUrl: dlq.url,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: 0,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
    const first = await read();
    expect(first.Messages).toEqual([
      expect.objectContaining({
        MessageId,
        Body: '{"migrationId":"m-1"}',
        MD5OfBody: createHash('md5').update('{"migrationId":"m-1"}').digest('hex'),
        ReceiptHandle: expect.any(String),
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'start' } },
        Attributes: expect.objectContaining({
          ApproximateReceiveCount: '2',
          DeadLetterQueueSourceArn: 'arn:aws:sqs:local:000000000000:work',
          SentTimestamp: expect.stringMatching(/^\d{13}$/),
        }),
      }),
    ]);
    // Still there: a second read sees it again, and the queue's depth has not moved.
    expect((await read()).Messages?.map((m) => m.MessageId)).toEqual([MessageId]);
    expect(await attributes(client, dlq)).toMatchObject({
      ApproximateNumberOfMessages: '1',
      ApproximateNumberOfMessagesNotVisible: '0',
    });
    expect(dlq.list().map((m) => m.messageId)).toEqual([MessageId]);
  });

  test('ReceiveMessage hides for its visibility timeout; DeleteMessage takes only the latest handle', async () => {
    const { client, queue } = await setUp();
    await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'one' }));
    const got = await client.send(new ReceiveMessageCommand({ QueueUrl: queue.url, VisibilityTimeout: 1 }));
    const [message] = got.Messages ?? [];
    expect(message?.Body).toBe('one');
    expect(message?.Attributes).toBeUndefined();
    expect(await attributes(client, queue)).toMatchObject({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '1',
    });
    expect((await client.send(new ReceiveMessageCommand({ QueueUrl: queue.url }))).Messages ?? []).toEqual([]);
    // Long polling answers once the message is visible again, with a new handle.
    const again = await client.send(
      new ReceiveMessageCommand({ QueueUrl: queue.url, WaitTimeSeconds: 5, MessageSystemAttributeNames: ['All'] }),
    );
    const [second] = again.Messages ?? [];
    expect(second?.Attributes?.ApproximateReceiveCount).toBe('2');
    expect(second?.ReceiptHandle).not.toBe(message?.ReceiptHandle);
    // An older receive's handle is accepted and deletes nothing, as in SQS.
    await client.send(new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: message?.ReceiptHandle }));
    expect(queue.list()).toHaveLength(1);
    await client.send(new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: second?.ReceiptHandle }));
    expect(queue.list()).toHaveLength(0);
    await client.send(new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: second?.ReceiptHandle }));
    await expect(
      client.send(new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: 'not a handle' })),
    ).rejects.toBeInstanceOf(ReceiptHandleIsInvalid);
  });

  test('ReceiveMessage checks its parameters; a message received maxReceiveCount times moves to the dead letters', async () => {
    const { client, queue, dlq } = await setUp({ maxReceiveCount: 2 });
    for (const [name, value] of [
      ['MaxNumberOfMessages', 11],
      ['MaxNumberOfMessages', 0],
      ['VisibilityTimeout', -1],
      ['WaitTimeSeconds', 21],
    ] as const) {
      await expect(client.send(new ReceiveMessageCommand({ QueueUrl: queue.url, [name]: value }))).rejects.toThrow(
        new RegExp(`${name} is invalid`),
      );
    }
    await expect(
      client.send(new ReceiveMessageCommand({ QueueUrl: `${sqs?.endpoint}/000000000000/nope` })),
    ).rejects.toBeInstanceOf(QueueDoesNotExist);
    const { MessageId } = await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'x' }));
    for (let i = 0; i < 2; i++) {
      const got = await client.send(new ReceiveMessageCommand({ QueueUrl: queue.url, VisibilityTimeout: 0 }));
      expect(got.Messages?.map((m) => m.MessageId)).toEqual([MessageId]);
    }
    // The third receive finds it at its limit, never deleted: it goes to the dead letters.
    expect((await client.send(new ReceiveMessageCommand({ QueueUrl: queue.url }))).Messages ?? []).toEqual([]);
    expect(dlq.list()).toEqual([expect.objectContaining({ messageId: MessageId, receiveCount: 2 })]);
  });

  test('hostile requests get an SQS error, never a crash', async () => {
    const { queue } = await setUp();
    const endpoint = sqs?.endpoint as string;
    const post = (target: string, body: string) =>
      fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': `AmazonSQS.${target}`,
          // The access key the stand-in was started with (the signature itself is not checked).
          authorization:
            'AWS4-HMAC-SHA256 Credential=local/20200101/local/sqs/aws4_request, SignedHeaders=host, Signature=0',
        },
        body,
      });
    for (const [target, body] of [
      ['ReceiveMessage', 'null'],
      ['ReceiveMessage', '{"QueueUrl":42}'],
      ['ReceiveMessage', `{"QueueUrl":"${queue.url}","MaxNumberOfMessages":"10"}`],
      ['ReceiveMessage', `{"QueueUrl":"${queue.url}","MessageAttributeNames":[null,{}],"AttributeNames":"All"}`],
      ['DeleteMessage', `{"QueueUrl":"${queue.url}","ReceiptHandle":{"a":1}}`],
      ['DeleteMessage', `{"QueueUrl":"${queue.url}","ReceiptHandle":"${'A'.repeat(5000)}.x"}`],
      ['ListQueues', '{"QueueNamePrefix":{},"MaxResults":"5"}'],
      ['ListQueues', '{"NextToken":["1"]}'],
    ]) {
      const response = await post(target as string, body as string);
      expect([response.status, target]).toEqual([400, target]);
      expect(((await response.json()) as { __type: string }).__type).toMatch(/^com\.amazonaws\.sqs#/);
    }
    // Still serving.
    expect((await post('ListQueues', '{}')).status).toBe(200);
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
    const after = await startLocalSqs({ accessKeyId: 'local', region: 'local', persistFile: crashed });
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
