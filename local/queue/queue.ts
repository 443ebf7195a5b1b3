import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { LOCAL_ACCOUNT_ID, lambdaContext } from '../lambda-context.js';
import { type NewMessage, newMessage, type QueuedMessage, recordAttributes } from './message.js';
import { messageIdOf, newReceiptHandle } from './receipt-handle.js';

/**
 * One queue of the SQS twin, and Lambda's SQS event source mapping in front of its consumer:
 * batches of visible messages go to the consumer as a real SQSEvent; what succeeded is deleted,
 * what failed becomes visible again after a (short) visibility delay, and a message received
 * maxReceiveCount times that fails again moves to the dead-letter queue.
 */

export const SENDER_ID = 'AIDALOCALSQSTWIN';

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
  /** The memory its context reports (Lambda's memoryLimitInMB). */
  memoryMb?: number;
}

export interface QueueOptions {
  /** Moves a message here once it was received maxReceiveCount times and failed again. */
  deadLetter?: { queue: LocalQueue; maxReceiveCount: number };
  /** How long a failed message stays invisible before it is delivered again. */
  retryDelayMs?: number;
}

/** A message as ReceiveMessage hands it out: the handle that deletes it. */
export interface ReceivedMessage extends QueuedMessage {
  receiptHandle: string;
}

export interface QueueCounts {
  visible: number;
  inFlight: number;
  delayed: number;
}

export type LogLine = (line: string) => void;

/** Where a queue records each change of its messages: the store on disk, or nowhere. */
export interface QueueJournal {
  /** A message added, or changed (receive count, visibility). */
  put(message: QueuedMessage): void;
  /** A message deleted: delivered, or moved to the dead-letter queue. */
  remove(messageId: string): void;
  /** Resolves once every change recorded so far is on disk. */
  flush(): Promise<void>;
}

const IN_MEMORY: QueueJournal = { put() {}, remove() {}, flush: () => Promise.resolve() };

interface StoredMessage extends QueuedMessage {
  inFlight: boolean;
  receiptHandle?: string;
}

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The message without the delivery's own state, as a copy. */
const saved = ({ inFlight: _inFlight, receiptHandle: _receipt, ...message }: StoredMessage): QueuedMessage => ({
  ...message,
});

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
    private readonly journal: QueueJournal = IN_MEMORY,
  ) {
    this.retryDelayMs = options.retryDelayMs ?? 2000;
  }

  get arn(): string {
    return `arn:aws:sqs:${this.region}:${LOCAL_ACCOUNT_ID}:${this.name}`;
  }

  /** Closed: delivers nothing more (a long-polling receive stops waiting). */
  get isClosed(): boolean {
    return this.closed;
  }

  get deadLetter(): QueueOptions['deadLetter'] {
    return this.options.deadLetter;
  }

  /** Queues a message at once; `persisted()` tells when it is on disk (SendMessage answers then). */
  send(input: NewMessage): QueuedMessage {
    const message: StoredMessage = { ...newMessage(input), inFlight: false };
    this.messages.push(message);
    this.journal.put(saved(message));
    this.changed();
    return saved(message);
  }

  /** Resolves once every change so far (sent messages included) is on disk. */
  persisted(): Promise<void> {
    return this.journal.flush();
  }

  /** A copy of every message in the queue (for the dead-letter queue: what failed and why). */
  list(): QueuedMessage[] {
    return this.messages.map(saved);
  }

  /**
   * SQS's ReceiveMessage: up to `max` visible messages, in the order sent, each counted as a
   * receive and given a new receipt handle, then hidden for `visibilityMs` (0 leaves them
   * visible: read, not taken). As in SQS, a message already received maxReceiveCount times
   * goes to the dead-letter queue instead of coming back.
   */
  receive(max: number, visibilityMs: number): ReceivedMessage[] {
    const now = Date.now();
    this.redriveExhausted(now);
    const taken = this.messages.filter((m) => !m.inFlight && m.visibleAt <= now).slice(0, max);
    for (const m of taken) {
      m.receiveCount += 1;
      m.firstReceiveTimestamp ??= now;
      m.receiptHandle = newReceiptHandle(m.messageId);
      m.visibleAt = now + visibilityMs;
      this.journal.put(saved(m));
    }
    // Wakes the consumer, if any, when the messages become visible again.
    this.changed();
    return taken.map((m) => ({ ...saved(m), receiptHandle: m.receiptHandle as string }));
  }

  /**
   * SQS's DeleteMessage. Only the latest receive's handle deletes; an older one, or one of a
   * message already gone, changes nothing and is no error, as in SQS. Throws on a handle this
   * twin never made.
   */
  deleteReceived(receiptHandle: string): boolean {
    const messageId = messageIdOf(receiptHandle);
    const message = this.messages.find((m) => m.messageId === messageId);
    if (!message || message.receiptHandle !== receiptHandle) return false;
    this.remove(message);
    this.changed();
    return true;
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

  /** Starts delivering to `consumer` (replacing any previous one). */
  attach(consumer: ConsumerOptions): void {
    this.consumer = {
      functionName: `${this.name}-consumer`,
      batchSize: 1,
      concurrency: 2,
      timeoutMs: 60_000,
      memoryMb: 512,
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

  /**
   * Messages saved by an earlier run (already in the store, so not recorded again). None is in
   * flight any more: each becomes deliverable at its time. Returns how many were new here.
   */
  restore(messages: QueuedMessage[]): number {
    const present = new Set(this.messages.map((m) => m.messageId));
    const added = messages.filter((m) => !present.has(m.messageId));
    for (const message of added) this.messages.push({ ...message, inFlight: false });
    this.changed();
    return added.length;
  }

  private isIdle(): boolean {
    return this.messages.length === 0 && this.active.size === 0;
  }

  private changed(): void {
    if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
    this.kick();
  }

  /** Whether the message is still here: a DeleteMessage may take one while its delivery runs. */
  private holds(message: StoredMessage): boolean {
    return this.messages.includes(message);
  }

  private remove(message: StoredMessage): void {
    const index = this.messages.indexOf(message);
    if (index === -1) return;
    this.messages.splice(index, 1);
    this.journal.remove(message.messageId);
  }

  /** Messages that reached maxReceiveCount through ReceiveMessage without being deleted. */
  private redriveExhausted(now: number): void {
    const deadLetter = this.options.deadLetter;
    if (!deadLetter) return;
    for (const m of this.messages.filter((m) => !m.inFlight && m.visibleAt <= now)) {
      if (m.receiveCount >= deadLetter.maxReceiveCount) {
        this.moveToDeadLetter(m, 'received by ReceiveMessage and never deleted');
      }
    }
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
    this.redriveExhausted(now);
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
    const received = Date.now();
    for (const m of batch) {
      m.inFlight = true;
      m.receiveCount += 1;
      m.firstReceiveTimestamp ??= received;
      m.receiptHandle = newReceiptHandle(m.messageId);
      this.journal.put(saved(m));
    }
    // As in SQS, a receive counts before the consumer sees it: a run cut short by a crash
    // still counts towards maxReceiveCount after the restart.
    await this.journal
      .flush()
      .catch((error) => this.log(`[sqs] ${this.name}: receive not saved: ${errorMessage(error)}`));
    const event: SQSEvent = { Records: batch.map((m) => this.toRecord(m)) };
    const context = lambdaContext({
      functionName: consumer.functionName,
      timeoutMs: consumer.timeoutMs,
      memoryLimitInMB: consumer.memoryMb,
      region: this.region,
    });
    const started = Date.now();
    let failed: Set<string>;
    let reason = '';
    try {
      failed = this.failedIds(await this.invoke(consumer, event, context), batch);
      reason = failed.size > 0 ? 'reported in batchItemFailures' : '';
    } catch (error) {
      failed = new Set(batch.map((m) => m.messageId));
      reason = errorMessage(error);
    }
    const ms = Date.now() - started;
    for (const m of batch.filter((m) => this.holds(m))) {
      if (failed.has(m.messageId)) this.failed(m, reason);
      else this.remove(m);
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
      this.moveToDeadLetter(message, reason);
      return;
    }
    message.visibleAt = Date.now() + this.retryDelayMs;
    this.journal.put(saved(message));
  }

  private moveToDeadLetter(message: StoredMessage, reason: string): void {
    const deadLetter = this.options.deadLetter;
    if (!deadLetter) return;
    // Into the dead-letter queue first, then out of this one: a crash in between leaves a
    // copy in both, never in neither.
    deadLetter.queue.receiveDeadLetter(message, reason, this.arn);
    this.remove(message);
    this.log(
      `[sqs] ${this.name}: message ${message.messageId} moved to ${deadLetter.queue.name} after ` +
        `${message.receiveCount} receive(s). Last error: ${reason}`,
    );
  }

  private receiveDeadLetter(message: StoredMessage, reason: string, sourceArn: string): void {
    // As in SQS, the message keeps its id, body, attributes and receive count.
    const moved: StoredMessage = {
      ...saved(message),
      inFlight: false,
      visibleAt: Date.now(),
      deadLetterReason: reason,
      deadLetteredAt: Date.now(),
      deadLetterSourceArn: sourceArn,
    };
    this.messages.push(moved);
    this.journal.put(saved(moved));
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
      messageAttributes: recordAttributes(m.messageAttributes),
      md5OfBody: m.md5OfBody,
      ...(m.md5OfMessageAttributes ? { md5OfMessageAttributes: m.md5OfMessageAttributes } : {}),
      eventSource: 'aws:sqs',
      eventSourceARN: this.arn,
      awsRegion: this.region,
    };
  }
}
