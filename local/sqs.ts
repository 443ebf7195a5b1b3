import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, lambdaContext } from './lambda-context.js';

/**
 * The local twin of SQS plus Lambda's SQS event source mapping, in process.
 *
 * - An HTTP endpoint speaks the AWS JSON 1.0 protocol the SDK v3 SQSClient uses
 *   (`x-amz-target: AmazonSQS.<Operation>`): SendMessage, SendMessageBatch, GetQueueUrl,
 *   GetQueueAttributes, ListQueues and PurgeQueue.
 * - A delivery loop plays the event source mapping: it hands batches of visible messages to
 *   the consumer as a real SQSEvent, deletes what succeeded, makes what failed visible again
 *   after a (short) visibility delay, and moves a message to the dead-letter queue once it has
 *   been received maxReceiveCount times.
 */

export const MAX_MESSAGE_BYTES = 262_144;
export const MAX_DELAY_SECONDS = 900;
const MAX_BATCH_ENTRIES = 10;
const MAX_REQUEST_BYTES = 2 * 1024 * 1024;
const SENDER_ID = 'AIDALOCALSQSTWIN';
// Characters SQS accepts in a message body (anything else is InvalidMessageContents).
const INVALID_MESSAGE_CHARACTERS = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** A message attribute as the JSON protocol carries it (binary values are base64). */
export interface WireMessageAttribute {
  DataType: string;
  StringValue?: string;
  BinaryValue?: string;
}

export interface QueuedMessage {
  messageId: string;
  body: string;
  md5OfBody: string;
  md5OfMessageAttributes?: string;
  messageAttributes: Record<string, WireMessageAttribute>;
  sentTimestamp: number;
  firstReceiveTimestamp?: number;
  receiveCount: number;
  /** Epoch ms from which the message may be delivered (delay, or visibility after a failure). */
  visibleAt: number;
  /** Set in the dead-letter queue: why the last delivery failed and when it moved. */
  deadLetterReason?: string;
  deadLetteredAt?: number;
}

interface StoredMessage extends QueuedMessage {
  inFlight: boolean;
  receiptHandle?: string;
}

/** Lambda reads whatever the handler returns; a partial batch response is `SQSBatchResponse`. */
export type QueueConsumer = (event: SQSEvent, context: Context) => Promise<unknown>;

export interface ConsumerOptions {
  handler: QueueConsumer;
  functionName?: string;
  /** Records per invocation (the stack uses 1). */
  batchSize?: number;
  /** Invocations at once (Lambda's minimum maxConcurrency for SQS is 2). */
  concurrency?: number;
  /** The consumer's timeout: its context counts down from it; a longer run fails the batch. */
  timeoutMs?: number;
}

export interface QueueOptions {
  /** Moves a message here once it was received maxReceiveCount times and failed again. */
  deadLetter?: { queue: LocalQueue; maxReceiveCount: number };
  /** How long a failed message stays invisible before it is delivered again. */
  retryDelayMs?: number;
}

export interface QueueCounts {
  visible: number;
  inFlight: number;
  delayed: number;
}

export type LogLine = (line: string) => void;

export class SqsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly queryCode = code,
    readonly httpStatus = 400,
  ) {
    super(message);
  }
}

const md5 = (data: Buffer | string) => createHash('md5').update(data).digest('hex');

const lengthPrefixed = (data: Buffer): Buffer => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  return Buffer.concat([length, data]);
};

/** SQS's MD5 of message attributes: names sorted, each field length-prefixed, transport byte. */
export const md5OfMessageAttributes = (attributes: Record<string, WireMessageAttribute>): string | undefined => {
  const names = Object.keys(attributes).sort();
  if (names.length === 0) return undefined;
  const parts: Buffer[] = [];
  for (const name of names) {
    const attribute = attributes[name] as WireMessageAttribute;
    parts.push(lengthPrefixed(Buffer.from(name)), lengthPrefixed(Buffer.from(attribute.DataType)));
    if (attribute.BinaryValue !== undefined) {
      parts.push(Buffer.from([2]), lengthPrefixed(Buffer.from(attribute.BinaryValue, 'base64')));
    } else {
      parts.push(Buffer.from([1]), lengthPrefixed(Buffer.from(attribute.StringValue ?? '')));
    }
  }
  return md5(Buffer.concat(parts));
};

const toRecordAttributes = (attributes: Record<string, WireMessageAttribute>): SQSMessageAttributes =>
  Object.fromEntries(
    Object.entries(attributes).map(([name, a]) => [
      name,
      {
        dataType: a.DataType,
        ...(a.StringValue !== undefined ? { stringValue: a.StringValue } : {}),
        ...(a.BinaryValue !== undefined ? { binaryValue: a.BinaryValue } : {}),
        stringListValues: [],
        binaryListValues: [],
      },
    ]),
  );

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export class LocalQueue {
  private readonly messages: StoredMessage[] = [];
  private consumer: Required<ConsumerOptions> | undefined;
  private readonly active = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private kicked = false;
  private idleWaiters: (() => void)[] = [];
  readonly retryDelayMs: number;

  constructor(
    readonly name: string,
    readonly url: string,
    readonly region: string,
    private readonly options: QueueOptions,
    private readonly log: LogLine,
    private readonly onChange: () => void,
  ) {
    this.retryDelayMs = options.retryDelayMs ?? 2000;
  }

  get arn(): string {
    return `arn:aws:sqs:${this.region}:${LOCAL_ACCOUNT_ID}:${this.name}`;
  }

  get deadLetter(): QueueOptions['deadLetter'] {
    return this.options.deadLetter;
  }

  send({
    body,
    delaySeconds = 0,
    messageAttributes = {},
  }: {
    body: string;
    delaySeconds?: number;
    messageAttributes?: Record<string, WireMessageAttribute>;
  }): QueuedMessage {
    const now = Date.now();
    const md5OfAttributes = md5OfMessageAttributes(messageAttributes);
    const message: StoredMessage = {
      messageId: randomUUID(),
      body,
      md5OfBody: md5(body),
      ...(md5OfAttributes ? { md5OfMessageAttributes: md5OfAttributes } : {}),
      messageAttributes,
      sentTimestamp: now,
      receiveCount: 0,
      visibleAt: now + delaySeconds * 1000,
      inFlight: false,
    };
    this.messages.push(message);
    this.changed();
    return { ...message };
  }

  /** A copy of every message in the queue (for the dead-letter queue: what failed and why). */
  list(): QueuedMessage[] {
    return this.messages.map(({ inFlight: _inFlight, receiptHandle: _receipt, ...message }) => ({ ...message }));
  }

  counts(now = Date.now()): QueueCounts {
    let visible = 0;
    let inFlight = 0;
    let delayed = 0;
    for (const m of this.messages) {
      if (m.inFlight) inFlight++;
      else if (m.visibleAt > now) m.receiveCount === 0 ? delayed++ : inFlight++;
      else visible++;
    }
    return { visible, inFlight, delayed };
  }

  purge(): void {
    // Messages being delivered finish their delivery; everything else goes.
    this.messages.splice(0, this.messages.length, ...this.messages.filter((m) => m.inFlight));
    this.changed();
  }

  /** Starts delivering to `consumer` (replacing any previous one). */
  attach(consumer: ConsumerOptions): void {
    this.consumer = {
      functionName: `${this.name}-consumer`,
      batchSize: 1,
      concurrency: 2,
      timeoutMs: 60_000,
      ...consumer,
    };
    this.kick();
  }

  /** Resolves once the queue holds no message (delayed ones included) and no delivery is running. */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops delivering and waits for the deliveries under way. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled([...this.active]);
  }

  /** Messages restored from a snapshot: none is in flight any more, so all become deliverable. */
  restore(messages: QueuedMessage[]): void {
    for (const message of messages) this.messages.push({ ...message, inFlight: false });
    this.changed();
  }

  private isIdle(): boolean {
    return this.messages.length === 0 && this.active.size === 0;
  }

  private changed(): void {
    this.onChange();
    if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
    this.kick();
  }

  /** Delivery starts on the next turn, so that the entries of one SendMessageBatch travel together. */
  private kick(): void {
    if (this.kicked) return;
    this.kicked = true;
    setImmediate(() => {
      this.kicked = false;
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.closed || !this.consumer) return;
    const { batchSize, concurrency } = this.consumer;
    const now = Date.now();
    while (this.active.size < concurrency) {
      const batch = this.messages.filter((m) => !m.inFlight && m.visibleAt <= now).slice(0, batchSize);
      if (batch.length === 0) break;
      const delivery = this.deliver(batch).finally(() => {
        this.active.delete(delivery);
        this.changed();
      });
      this.active.add(delivery);
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const next = Math.min(...this.messages.filter((m) => !m.inFlight && m.visibleAt > now).map((m) => m.visibleAt));
    if (Number.isFinite(next)) {
      this.timer = setTimeout(() => this.schedule(), Math.max(0, next - now));
      this.timer.unref();
    }
  }

  private async deliver(batch: StoredMessage[]): Promise<void> {
    const consumer = this.consumer as Required<ConsumerOptions>;
    const now = Date.now();
    for (const m of batch) {
      m.inFlight = true;
      m.receiveCount += 1;
      m.firstReceiveTimestamp ??= now;
      m.receiptHandle = randomBytes(48).toString('base64');
    }
    const event: SQSEvent = { Records: batch.map((m) => this.toRecord(m)) };
    const context = lambdaContext({
      functionName: consumer.functionName,
      timeoutMs: consumer.timeoutMs,
      region: this.region,
    });
    let failed: Set<string>;
    let reason = '';
    try {
      failed = this.failedIds(await this.invoke(consumer, event, context), batch);
      reason = failed.size > 0 ? 'reported in batchItemFailures' : '';
    } catch (error) {
      failed = new Set(batch.map((m) => m.messageId));
      reason = errorMessage(error);
    }
    const ms = Date.now() - now;
    for (const m of batch) {
      if (failed.has(m.messageId)) this.failed(m, reason);
      else this.messages.splice(this.messages.indexOf(m), 1);
    }
    const ok = batch.length - failed.size;
    this.log(
      `[sqs] ${this.name}: ${consumer.functionName} ${context.awsRequestId} ${batch.length} message(s), ${ok} ok` +
        `${failed.size ? `, ${failed.size} failed (${reason})` : ''} in ${ms} ms`,
    );
  }

  /** The handler's promise against its timeout; a late handler is left to finish on its own. */
  private invoke(consumer: Required<ConsumerOptions>, event: SQSEvent, context: Context): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const run = Promise.resolve().then(() => consumer.handler(event, context));
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Task timed out after ${(consumer.timeoutMs / 1000).toFixed(2)} seconds`)),
        consumer.timeoutMs,
      );
    });
    run.catch(() => {});
    return Promise.race([run, timeout]).finally(() => clearTimeout(timer));
  }

  /**
   * Lambda's reading of a partial batch response: none or an empty list is success; an entry
   * whose itemIdentifier is missing or not in the batch fails the whole batch.
   */
  private failedIds(response: unknown, batch: StoredMessage[]): Set<string> {
    const failures = (response as Partial<SQSBatchResponse> | null | undefined)?.batchItemFailures;
    if (!Array.isArray(failures) || failures.length === 0) return new Set();
    const ids = new Set(batch.map((m) => m.messageId));
    for (const failure of failures) {
      if (!failure?.itemIdentifier || !ids.has(failure.itemIdentifier)) {
        throw new Error(`invalid batchItemFailures entry ${JSON.stringify(failure)}`);
      }
    }
    return new Set(failures.map((f) => f.itemIdentifier));
  }

  private failed(message: StoredMessage, reason: string): void {
    message.inFlight = false;
    delete message.receiptHandle;
    const deadLetter = this.options.deadLetter;
    if (deadLetter && message.receiveCount >= deadLetter.maxReceiveCount) {
      this.messages.splice(this.messages.indexOf(message), 1);
      deadLetter.queue.receiveDeadLetter(message, reason);
      this.log(
        `[sqs] ${this.name}: message ${message.messageId} failed ${message.receiveCount} time(s); moved to ` +
          `${deadLetter.queue.name}. Last error: ${reason}`,
      );
      return;
    }
    message.visibleAt = Date.now() + this.retryDelayMs;
  }

  private receiveDeadLetter(message: StoredMessage, reason: string): void {
    // As in SQS, the message keeps its id, body, attributes and receive count.
    this.messages.push({
      ...message,
      inFlight: false,
      visibleAt: Date.now(),
      deadLetterReason: reason,
      deadLetteredAt: Date.now(),
    });
    this.changed();
  }

  private toRecord(m: StoredMessage): SQSRecord {
    return {
      messageId: m.messageId,
      receiptHandle: m.receiptHandle as string,
      body: m.body,
      attributes: {
        ApproximateReceiveCount: String(m.receiveCount),
        SentTimestamp: String(m.sentTimestamp),
        SenderId: SENDER_ID,
        ApproximateFirstReceiveTimestamp: String(m.firstReceiveTimestamp),
      },
      messageAttributes: toRecordAttributes(m.messageAttributes),
      md5OfBody: m.md5OfBody,
      ...(m.md5OfMessageAttributes ? { md5OfMessageAttributes: m.md5OfMessageAttributes } : {}),
      eventSource: 'aws:sqs',
      eventSourceARN: this.arn,
      awsRegion: this.region,
    };
  }
}

export interface LocalSqsOptions {
  host?: string;
  port?: number;
  region?: string;
  /** A JSON file that keeps the queues' messages across restarts; none keeps them in memory. */
  persistFile?: string;
  log?: LogLine;
}

export interface LocalSqs {
  /** The endpoint for AWS_ENDPOINT_URL_SQS. */
  endpoint: string;
  createQueue(name: string, options?: QueueOptions): LocalQueue;
  queue(name: string): LocalQueue | undefined;
  /** Loads the persisted messages into the queues created so far; returns how many. */
  restore(): Promise<number>;
  /** Stops the deliveries, saves the queues (when persistent) and closes the endpoint. */
  close(): Promise<void>;
}

interface Snapshot {
  version: 1;
  queues: Record<string, QueuedMessage[]>;
}

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) throw new SqsError('RequestTooLong', 'The request is too large.');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
};

const QUERY_CODES: Record<string, string> = {
  QueueDoesNotExist: 'AWS.SimpleQueueService.NonExistentQueue',
  EmptyBatchRequest: 'AWS.SimpleQueueService.EmptyBatchRequest',
  TooManyEntriesInBatchRequest: 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
  BatchEntryIdsNotDistinct: 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct',
  InvalidBatchEntryId: 'AWS.SimpleQueueService.InvalidBatchEntryId',
  UnsupportedOperation: 'AWS.SimpleQueueService.UnsupportedOperation',
};

const sqsError = (code: string, message: string) => new SqsError(code, message, QUERY_CODES[code] ?? code);

/** Starts the SQS endpoint; create the queues on it afterwards (their URLs need its port). */
export const startLocalSqs = async ({
  host = '127.0.0.1',
  port = 0,
  region = LOCAL_REGION,
  persistFile,
  log = () => {},
}: LocalSqsOptions = {}): Promise<LocalSqs> => {
  const queues = new Map<string, LocalQueue>();
  let saveTimer: NodeJS.Timeout | undefined;
  let saving: Promise<void> = Promise.resolve();

  const save = async () => {
    if (!persistFile) return;
    const snapshot: Snapshot = {
      version: 1,
      queues: Object.fromEntries([...queues].map(([name, queue]) => [name, queue.list()])),
    };
    await mkdir(dirname(persistFile), { recursive: true });
    // Write then rename: a crash mid-write never leaves a truncated file behind.
    const temporary = `${persistFile}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(snapshot));
    await rename(temporary, persistFile);
  };
  const scheduleSave = () => {
    if (!persistFile || saveTimer) return;
    saveTimer = setTimeout(() => {
      saveTimer = undefined;
      saving = saving.then(save).catch((error) => log(`[sqs] could not save ${persistFile}: ${errorMessage(error)}`));
    }, 50);
    saveTimer.unref();
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error) => {
      const e =
        error instanceof SqsError
          ? error
          : new SqsError('InternalFailure', errorMessage(error), 'InternalFailure', 500);
      if (e.httpStatus >= 500) log(`[sqs] ${errorMessage(error)}`);
      reply(response, e.httpStatus, { __type: `com.amazonaws.sqs#${e.code}`, message: e.message }, e.queryCode);
    });
  });

  const reply = (response: ServerResponse, status: number, body: unknown, queryError?: string) => {
    if (response.headersSent) return;
    response.writeHead(status, {
      'content-type': 'application/x-amz-json-1.0',
      'x-amzn-requestid': randomUUID(),
      ...(queryError ? { 'x-amzn-query-error': `${queryError};${status >= 500 ? 'Receiver' : 'Sender'}` } : {}),
    });
    response.end(JSON.stringify(body));
  };

  const queueByUrl = (url: unknown): LocalQueue => {
    if (typeof url !== 'string' || !url) throw sqsError('MissingParameter', 'The request must contain QueueUrl.');
    let name: string | undefined;
    try {
      name = new URL(url).pathname.split('/').filter(Boolean).at(-1);
    } catch {
      name = undefined;
    }
    const queue = name ? queues.get(name) : undefined;
    if (!queue) throw sqsError('QueueDoesNotExist', 'The specified queue does not exist.');
    return queue;
  };

  const messageInput = (input: Record<string, unknown>) => {
    const body = input.MessageBody;
    if (typeof body !== 'string' || body.length === 0) {
      throw sqsError('MissingParameter', 'The request must contain the parameter MessageBody.');
    }
    if (Buffer.byteLength(body) > MAX_MESSAGE_BYTES) {
      throw sqsError('InvalidParameterValue', `Message must be shorter than ${MAX_MESSAGE_BYTES} bytes.`);
    }
    if (INVALID_MESSAGE_CHARACTERS.test(body)) {
      throw sqsError('InvalidMessageContents', 'Invalid characters found in the message body.');
    }
    const delaySeconds = input.DelaySeconds ?? 0;
    if (
      !Number.isInteger(delaySeconds) ||
      (delaySeconds as number) < 0 ||
      (delaySeconds as number) > MAX_DELAY_SECONDS
    ) {
      throw sqsError('InvalidParameterValue', `DelaySeconds must be an integer from 0 to ${MAX_DELAY_SECONDS}.`);
    }
    const messageAttributes = (input.MessageAttributes ?? {}) as Record<string, WireMessageAttribute>;
    return { body, delaySeconds: delaySeconds as number, messageAttributes };
  };

  const sent = (message: QueuedMessage) => ({
    MessageId: message.messageId,
    MD5OfMessageBody: message.md5OfBody,
    ...(message.md5OfMessageAttributes ? { MD5OfMessageAttributes: message.md5OfMessageAttributes } : {}),
  });

  const operations: Record<string, (input: Record<string, unknown>) => unknown> = {
    GetQueueUrl: (input) => {
      const queue = queues.get(String(input.QueueName ?? ''));
      if (!queue) throw sqsError('QueueDoesNotExist', 'The specified queue does not exist.');
      return { QueueUrl: queue.url };
    },
    ListQueues: (input) => ({
      QueueUrls: [...queues.values()]
        .filter((q) => q.name.startsWith(String(input.QueueNamePrefix ?? '')))
        .map((q) => q.url),
    }),
    SendMessage: (input) => sent(queueByUrl(input.QueueUrl).send(messageInput(input))),
    SendMessageBatch: (input) => {
      const queue = queueByUrl(input.QueueUrl);
      const entries = Array.isArray(input.Entries) ? (input.Entries as Record<string, unknown>[]) : [];
      if (entries.length === 0) throw sqsError('EmptyBatchRequest', 'There should be at least one entry.');
      if (entries.length > MAX_BATCH_ENTRIES) {
        throw sqsError(
          'TooManyEntriesInBatchRequest',
          `Maximum number of entries per request are ${MAX_BATCH_ENTRIES}.`,
        );
      }
      const ids = entries.map((entry) => String(entry.Id ?? ''));
      if (new Set(ids).size !== ids.length) throw sqsError('BatchEntryIdsNotDistinct', 'Id values must be distinct.');
      const badId = ids.find((id) => !/^[\w-]{1,80}$/.test(id));
      if (badId !== undefined)
        throw sqsError('InvalidBatchEntryId', `Invalid batch entry id ${JSON.stringify(badId)}.`);
      const Successful: unknown[] = [];
      const Failed: unknown[] = [];
      for (const entry of entries) {
        try {
          Successful.push({ Id: entry.Id, ...sent(queue.send(messageInput(entry))) });
        } catch (error) {
          const e = error as SqsError;
          Failed.push({ Id: entry.Id, SenderFault: true, Code: e.code, Message: e.message });
        }
      }
      return { Successful, Failed };
    },
    GetQueueAttributes: (input) => {
      const queue = queueByUrl(input.QueueUrl);
      const { visible, inFlight, delayed } = queue.counts();
      const all: Record<string, string> = {
        QueueArn: queue.arn,
        ApproximateNumberOfMessages: String(visible),
        ApproximateNumberOfMessagesNotVisible: String(inFlight),
        ApproximateNumberOfMessagesDelayed: String(delayed),
        VisibilityTimeout: String(Math.round(queue.retryDelayMs / 1000)),
        DelaySeconds: '0',
        MaximumMessageSize: String(MAX_MESSAGE_BYTES),
        ...(queue.deadLetter
          ? {
              RedrivePolicy: JSON.stringify({
                deadLetterTargetArn: queue.deadLetter.queue.arn,
                maxReceiveCount: queue.deadLetter.maxReceiveCount,
              }),
            }
          : {}),
      };
      const names = Array.isArray(input.AttributeNames) ? (input.AttributeNames as string[]) : [];
      const wanted = names.length === 0 || names.includes('All') ? Object.keys(all) : names;
      return { Attributes: Object.fromEntries(wanted.filter((n) => n in all).map((n) => [n, all[n]])) };
    },
    PurgeQueue: (input) => {
      queueByUrl(input.QueueUrl).purge();
      return {};
    },
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    const body = await readBody(request);
    const [service, operationName = ''] = target.split('.');
    const operation = service === 'AmazonSQS' ? operations[operationName] : undefined;
    if (!operation) {
      throw sqsError('UnsupportedOperation', `The local SQS twin does not support ${target || 'this request'}.`);
    }
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(body || '{}');
    } catch {
      throw sqsError('SerializationException', 'The request body is not valid JSON.');
    }
    reply(response, 200, operation(input ?? {}));
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: boundPort } = server.address() as AddressInfo;
  const endpoint = `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}`;

  return {
    endpoint,
    createQueue(name, options = {}) {
      const queue = new LocalQueue(name, `${endpoint}/${LOCAL_ACCOUNT_ID}/${name}`, region, options, log, scheduleSave);
      queues.set(name, queue);
      return queue;
    },
    queue: (name) => queues.get(name),
    async restore() {
      if (!persistFile) return 0;
      let snapshot: Snapshot;
      try {
        snapshot = JSON.parse(await readFile(persistFile, 'utf8')) as Snapshot;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
        log(`[sqs] ignoring unreadable ${persistFile}: ${errorMessage(error)}`);
        return 0;
      }
      let count = 0;
      for (const [name, messages] of Object.entries(snapshot.queues ?? {})) {
        const queue = queues.get(name);
        if (!queue || !Array.isArray(messages)) continue;
        queue.restore(messages);
        count += messages.length;
      }
      return count;
    },
    async close() {
      await Promise.all([...queues.values()].map((queue) => queue.close()));
      if (saveTimer) clearTimeout(saveTimer);
      saveTimer = undefined;
      await saving;
      await save();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
