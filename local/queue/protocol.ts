import type { RequestListener } from 'node:http';
import { AwsJsonError, awsJsonListener, type Operation } from '../aws-json/listener.js';
import { md5OfMessageAttributes, type QueuedMessage, type WireMessageAttribute } from './message.js';
import { type LocalQueue, type LogLine, type ReceivedMessage, SENDER_ID } from './queue.js';
import { InvalidReceiptHandle } from './receipt-handle.js';

/**
 * The SQS endpoint as the SDK v3 SQSClient speaks to it: AWS JSON 1.0 over HTTP
 * (`x-amz-target: AmazonSQS.<Operation>`). What the service, its tests and its tools call:
 * SendMessage (the service), SendMessageBatch, GetQueueUrl, ListQueues and GetQueueAttributes,
 * and ReceiveMessage and DeleteMessage (`npm run inspect` reads dead letters with a receive of
 * visibility 0, which leaves them in place).
 */

const MAX_MESSAGE_BYTES = 262_144;
/** SQS's defaults and limits for ReceiveMessage and ListQueues. */
const DEFAULT_VISIBILITY_SECONDS = 30;
const MAX_VISIBILITY_SECONDS = 43_200;
const MAX_RECEIVE_MESSAGES = 10;
const MAX_WAIT_SECONDS = 20;
const MAX_LIST_RESULTS = 1_000;
const LONG_POLL_STEP_MS = 50;
const MAX_DELAY_SECONDS = 900;
const MAX_BATCH_ENTRIES = 10;
const MAX_REQUEST_BYTES = 2 * 1024 * 1024;
// Characters SQS accepts in a message body (anything else is InvalidMessageContents).
const INVALID_MESSAGE_CHARACTERS = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

class SqsError extends AwsJsonError {}

/** The query-protocol code, which the SDK maps to its error classes (QueueDoesNotExist, ...). */
const queryCodeOf = (code: string): string => QUERY_CODES[code] ?? code;

const QUERY_CODES: Record<string, string> = {
  QueueDoesNotExist: 'AWS.SimpleQueueService.NonExistentQueue',
  EmptyBatchRequest: 'AWS.SimpleQueueService.EmptyBatchRequest',
  TooManyEntriesInBatchRequest: 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
  BatchEntryIdsNotDistinct: 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct',
  InvalidBatchEntryId: 'AWS.SimpleQueueService.InvalidBatchEntryId',
  UnsupportedOperation: 'AWS.SimpleQueueService.UnsupportedOperation',
};

/** An optional integer parameter within [min, max], or SQS's InvalidParameterValue naming it. */
const integerParameter = (input: Record<string, unknown>, name: string, min: number, max: number, fallback: number) => {
  const value = input[name] ?? fallback;
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    throw new SqsError(
      'InvalidParameterValue',
      `Value ${JSON.stringify(input[name])} for parameter ${name} is invalid. Reason: Must be between ${min} and ${max}, if provided.`,
    );
  }
  return value as number;
};

/** An optional list of names, or InvalidParameterValue naming the parameter. */
const stringList = (input: Record<string, unknown>, name: string): string[] => {
  const value = input[name] ?? [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new SqsError('InvalidParameterValue', `${name} must be a list of strings.`);
  }
  return value;
};

/** The system attributes ReceiveMessage returns when asked (MessageSystemAttributeNames, or the older AttributeNames). */
const systemAttributes = (message: ReceivedMessage, asked: string[]): Record<string, string> | undefined => {
  if (asked.length === 0) return undefined;
  const all: Record<string, string> = {
    SenderId: SENDER_ID,
    SentTimestamp: String(message.sentTimestamp),
    ApproximateReceiveCount: String(message.receiveCount),
    ApproximateFirstReceiveTimestamp: String(message.firstReceiveTimestamp ?? message.sentTimestamp),
    ...(message.deadLetterSourceArn ? { DeadLetterQueueSourceArn: message.deadLetterSourceArn } : {}),
  };
  const names = asked.includes('All') ? Object.keys(all) : asked.filter((name) => name in all);
  return Object.fromEntries(names.map((name) => [name, all[name] as string]));
};

/** The message attributes asked for: `All` or `.*`, a name, or a prefix ending in `.*`. */
const messageAttributes = (message: ReceivedMessage, asked: string[]) => {
  const wanted = (name: string) =>
    asked.some((pattern) =>
      pattern === 'All' || pattern === '.*'
        ? true
        : pattern.endsWith('.*')
          ? name.startsWith(pattern.slice(0, -1))
          : name === pattern,
    );
  const picked = Object.fromEntries(Object.entries(message.messageAttributes).filter(([name]) => wanted(name)));
  return Object.keys(picked).length ? picked : undefined;
};

/** What ReceiveMessage was asked to return besides the body. */
const askedFor = (input: Record<string, unknown>) => ({
  system: [...stringList(input, 'AttributeNames'), ...stringList(input, 'MessageSystemAttributeNames')],
  user: stringList(input, 'MessageAttributeNames'),
});

const received = (message: ReceivedMessage, asked: ReturnType<typeof askedFor>) => {
  const attributes = systemAttributes(message, asked.system);
  const userAttributes = messageAttributes(message, asked.user);
  return {
    MessageId: message.messageId,
    ReceiptHandle: message.receiptHandle,
    MD5OfBody: message.md5OfBody,
    Body: message.body,
    ...(attributes ? { Attributes: attributes } : {}),
    ...(userAttributes
      ? { MessageAttributes: userAttributes, MD5OfMessageAttributes: md5OfMessageAttributes(userAttributes) }
      : {}),
  };
};

const messageInput = (input: Record<string, unknown>) => {
  const body = input.MessageBody;
  if (typeof body !== 'string' || body.length === 0) {
    throw new SqsError('MissingParameter', 'The request must contain the parameter MessageBody.');
  }
  if (Buffer.byteLength(body) > MAX_MESSAGE_BYTES) {
    throw new SqsError('InvalidParameterValue', `Message must be shorter than ${MAX_MESSAGE_BYTES} bytes.`);
  }
  if (INVALID_MESSAGE_CHARACTERS.test(body)) {
    throw new SqsError('InvalidMessageContents', 'Invalid characters found in the message body.');
  }
  const delaySeconds = input.DelaySeconds ?? 0;
  if (!Number.isInteger(delaySeconds) || (delaySeconds as number) < 0 || (delaySeconds as number) > MAX_DELAY_SECONDS) {
    throw new SqsError('InvalidParameterValue', `DelaySeconds must be an integer from 0 to ${MAX_DELAY_SECONDS}.`);
  }
  const messageAttributes = (input.MessageAttributes ?? {}) as Record<string, WireMessageAttribute>;
  return { body, delaySeconds: delaySeconds as number, messageAttributes };
};

const sent = (message: QueuedMessage) => ({
  MessageId: message.messageId,
  MD5OfMessageBody: message.md5OfBody,
  ...(message.md5OfMessageAttributes ? { MD5OfMessageAttributes: message.md5OfMessageAttributes } : {}),
});

export interface QueueDirectory {
  /** The queue of that name, if any. */
  named(name: string): LocalQueue | undefined;
  /** Every queue. */
  all(): LocalQueue[];
}

/** The endpoint's request listener over the queues of `queues`. */
export const sqsProtocol = (queues: QueueDirectory, log: LogLine): RequestListener => {
  const queueNamed = (name: string | undefined): LocalQueue => {
    const queue = name ? queues.named(name) : undefined;
    if (!queue) throw new SqsError('QueueDoesNotExist', 'The specified queue does not exist.');
    return queue;
  };
  const queueByUrl = (url: unknown): LocalQueue => {
    if (typeof url !== 'string' || !url) throw new SqsError('MissingParameter', 'The request must contain QueueUrl.');
    let name: string | undefined;
    try {
      name = new URL(url).pathname.split('/').filter(Boolean).at(-1);
    } catch {
      name = undefined;
    }
    return queueNamed(name);
  };

  // A sent message is acknowledged only once it is on disk (see store.ts): a crash after the
  // answer must not lose it. Should the write fail, the sender gets an error and may send
  // again; the copy already queued makes that a duplicate, which at-least-once delivery allows.
  const operations: Record<string, Operation> = {
    GetQueueUrl: async (input) => ({ QueueUrl: queueNamed(String(input.QueueName ?? '')).url }),
    ListQueues: async (input) => {
      const prefix = input.QueueNamePrefix ?? '';
      if (typeof prefix !== 'string') throw new SqsError('InvalidParameterValue', 'QueueNamePrefix must be a string.');
      const names = queues
        .all()
        .filter((queue) => queue.name.startsWith(prefix))
        .sort((a, b) => a.name.localeCompare(b.name));
      const pageSize =
        input.MaxResults === undefined ? undefined : integerParameter(input, 'MaxResults', 1, MAX_LIST_RESULTS, 1);
      // A page token is the position of the next queue; SQS's own tokens are opaque too.
      const token = input.NextToken;
      const start =
        token === undefined
          ? 0
          : typeof token === 'string' && /^[0-9a-z]{1,8}$/.test(token)
            ? Number.parseInt(token, 36)
            : -1;
      if (start < 0 || start > names.length) {
        throw new SqsError('InvalidParameterValue', 'Invalid NextToken value.');
      }
      const page = names.slice(start, pageSize === undefined ? undefined : start + pageSize);
      const next = start + page.length;
      return {
        ...(page.length ? { QueueUrls: page.map((queue) => queue.url) } : {}),
        ...(pageSize !== undefined && next < names.length ? { NextToken: next.toString(36) } : {}),
      };
    },
    ReceiveMessage: async (input) => {
      const queue = queueByUrl(input.QueueUrl);
      const max = integerParameter(input, 'MaxNumberOfMessages', 1, MAX_RECEIVE_MESSAGES, 1);
      const visibility = integerParameter(
        input,
        'VisibilityTimeout',
        0,
        MAX_VISIBILITY_SECONDS,
        DEFAULT_VISIBILITY_SECONDS,
      );
      const waitSeconds = integerParameter(input, 'WaitTimeSeconds', 0, MAX_WAIT_SECONDS, 0);
      const asked = askedFor(input);
      // Long polling: answered as soon as a message is there, or empty when the wait is over.
      const deadline = Date.now() + waitSeconds * 1000;
      let messages = queue.receive(max, visibility * 1000);
      while (messages.length === 0 && Date.now() < deadline && !queue.isClosed) {
        await new Promise((resolve) => setTimeout(resolve, LONG_POLL_STEP_MS));
        messages = queue.receive(max, visibility * 1000);
      }
      // A receive counts before the caller sees it, as the consumers' deliveries do.
      await queue.persisted();
      return messages.length ? { Messages: messages.map((message) => received(message, asked)) } : {};
    },
    DeleteMessage: async (input) => {
      const queue = queueByUrl(input.QueueUrl);
      if (typeof input.ReceiptHandle !== 'string' || !input.ReceiptHandle) {
        throw new SqsError('MissingParameter', 'The request must contain the parameter ReceiptHandle.');
      }
      queue.deleteReceived(input.ReceiptHandle);
      await queue.persisted();
      return {};
    },
    SendMessage: async (input) => {
      const queue = queueByUrl(input.QueueUrl);
      const message = queue.send(messageInput(input));
      await queue.persisted();
      return sent(message);
    },
    SendMessageBatch: async (input) => {
      const queue = queueByUrl(input.QueueUrl);
      const entries = Array.isArray(input.Entries) ? (input.Entries as Record<string, unknown>[]) : [];
      if (entries.length === 0) throw new SqsError('EmptyBatchRequest', 'There should be at least one entry.');
      if (entries.length > MAX_BATCH_ENTRIES) {
        throw new SqsError(
          'TooManyEntriesInBatchRequest',
          `Maximum number of entries per request are ${MAX_BATCH_ENTRIES}.`,
        );
      }
      const ids = entries.map((entry) => String(entry.Id ?? ''));
      if (new Set(ids).size !== ids.length)
        throw new SqsError('BatchEntryIdsNotDistinct', 'Id values must be distinct.');
      const badId = ids.find((id) => !/^[\w-]{1,80}$/.test(id));
      if (badId !== undefined) {
        throw new SqsError('InvalidBatchEntryId', `Invalid batch entry id ${JSON.stringify(badId)}.`);
      }
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
      await queue.persisted();
      return { Successful, Failed };
    },
    GetQueueAttributes: async (input) => {
      const queue = queueByUrl(input.QueueUrl);
      const { visible, inFlight, delayed } = queue.counts();
      const all: Record<string, string> = {
        QueueArn: queue.arn,
        ApproximateNumberOfMessages: String(visible),
        ApproximateNumberOfMessagesNotVisible: String(inFlight),
        ApproximateNumberOfMessagesDelayed: String(delayed),
        VisibilityTimeout: String(DEFAULT_VISIBILITY_SECONDS),
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
  };

  return awsJsonListener(
    {
      name: 'sqs',
      targetPrefix: 'AmazonSQS',
      jsonVersion: '1.0',
      maxRequestBytes: MAX_REQUEST_BYTES,
      operations,
      errors: {
        unknown: (target) =>
          new SqsError('UnsupportedOperation', `The local SQS twin does not support ${target || 'this request'}.`),
        tooLarge: () => new SqsError('RequestTooLong', 'The request is too large.'),
        internal: (message) => new SqsError('InternalFailure', message, 500),
        from: (error) =>
          error instanceof InvalidReceiptHandle ? new SqsError('ReceiptHandleIsInvalid', error.message) : undefined,
      },
      errorBody: (e) => ({ __type: `com.amazonaws.sqs#${e.code}`, message: e.message }),
      errorHeaders: (e) => ({
        'x-amzn-query-error': `${queryCodeOf(e.code)};${e.httpStatus >= 500 ? 'Receiver' : 'Sender'}`,
      }),
    },
    log,
  );
};
