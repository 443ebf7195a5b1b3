import { createHash, randomUUID } from 'node:crypto';
import type { SQSMessageAttributes } from 'aws-lambda';

/** A message attribute as the JSON protocol carries it (binary values are base64). */
export interface WireMessageAttribute {
  DataType: string;
  StringValue?: string;
  BinaryValue?: string;
}

/** A message as the queue keeps it, and as the store saves it. */
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
  /** Set in the dead-letter queue: why the last delivery failed, when it moved, and from where. */
  deadLetterReason?: string;
  deadLetteredAt?: number;
  deadLetterSourceArn?: string;
}

export interface NewMessage {
  body: string;
  delaySeconds?: number;
  messageAttributes?: Record<string, WireMessageAttribute>;
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

export const newMessage = ({ body, delaySeconds = 0, messageAttributes = {} }: NewMessage): QueuedMessage => {
  const now = Date.now();
  const md5OfAttributes = md5OfMessageAttributes(messageAttributes);
  return {
    messageId: randomUUID(),
    body,
    md5OfBody: md5(body),
    ...(md5OfAttributes ? { md5OfMessageAttributes: md5OfAttributes } : {}),
    messageAttributes,
    sentTimestamp: now,
    receiveCount: 0,
    visibleAt: now + delaySeconds * 1000,
  };
};

/** The attributes as Lambda's SQS records carry them. */
export const recordAttributes = (attributes: Record<string, WireMessageAttribute>): SQSMessageAttributes =>
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
