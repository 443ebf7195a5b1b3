import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { QueuedMessage, WireMessageAttribute } from './message.js';
import type { LocalQueue, LogLine } from './queue.js';

/**
 * The SQS endpoint as the SDK v3 SQSClient speaks to it: AWS JSON 1.0 over HTTP
 * (`x-amz-target: AmazonSQS.<Operation>`). Only what the service and its tests call:
 * SendMessage (the service), and SendMessageBatch, GetQueueUrl and GetQueueAttributes (tests).
 */

const MAX_MESSAGE_BYTES = 262_144;
const MAX_DELAY_SECONDS = 900;
const MAX_BATCH_ENTRIES = 10;
const MAX_REQUEST_BYTES = 2 * 1024 * 1024;
// Characters SQS accepts in a message body (anything else is InvalidMessageContents).
const INVALID_MESSAGE_CHARACTERS = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

class SqsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly httpStatus = 400,
  ) {
    super(message);
  }

  /** The query-protocol code, which the SDK maps to its error classes (QueueDoesNotExist, ...). */
  get queryCode(): string {
    return QUERY_CODES[this.code] ?? this.code;
  }
}

const QUERY_CODES: Record<string, string> = {
  QueueDoesNotExist: 'AWS.SimpleQueueService.NonExistentQueue',
  EmptyBatchRequest: 'AWS.SimpleQueueService.EmptyBatchRequest',
  TooManyEntriesInBatchRequest: 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
  BatchEntryIdsNotDistinct: 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct',
  InvalidBatchEntryId: 'AWS.SimpleQueueService.InvalidBatchEntryId',
  UnsupportedOperation: 'AWS.SimpleQueueService.UnsupportedOperation',
};

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

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

const reply = (response: ServerResponse, status: number, body: unknown, queryError?: string) => {
  if (response.headersSent) return;
  response.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'x-amzn-requestid': randomUUID(),
    ...(queryError ? { 'x-amzn-query-error': `${queryError};${status >= 500 ? 'Receiver' : 'Sender'}` } : {}),
  });
  response.end(JSON.stringify(body));
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

type Operation = (input: Record<string, unknown>) => Promise<unknown>;

/** The endpoint's request listener over the queues that `queues` finds by name. */
export const sqsProtocol = (queues: (name: string) => LocalQueue | undefined, log: LogLine): RequestListener => {
  const queueNamed = (name: string | undefined): LocalQueue => {
    const queue = name ? queues(name) : undefined;
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

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    const body = await readBody(request);
    const [service, operationName = ''] = target.split('.');
    const operation = service === 'AmazonSQS' ? operations[operationName] : undefined;
    if (!operation) {
      throw new SqsError('UnsupportedOperation', `The local SQS twin does not support ${target || 'this request'}.`);
    }
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(body || '{}');
    } catch {
      throw new SqsError('SerializationException', 'The request body is not valid JSON.');
    }
    reply(response, 200, await operation(input ?? {}));
  };

  return (request, response) => {
    handle(request, response).catch((error) => {
      const e = error instanceof SqsError ? error : new SqsError('InternalFailure', errorMessage(error), 500);
      if (e.httpStatus >= 500) log(`[sqs] ${errorMessage(error)}`);
      reply(response, e.httpStatus, { __type: `com.amazonaws.sqs#${e.code}`, message: e.message }, e.queryCode);
    });
  };
};
