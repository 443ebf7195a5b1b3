import { randomBytes } from 'node:crypto';

/**
 * Receipt handles of the SQS twin: the message id and a random part, so that DeleteMessage finds
 * the message by its handle and can tell the latest receive's handle from an older one.
 */

const SHAPE = /^([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{32})$/;

export class InvalidReceiptHandle extends Error {}

export const newReceiptHandle = (messageId: string): string =>
  `${Buffer.from(messageId).toString('base64url')}.${randomBytes(24).toString('base64url')}`;

/** The message id a handle was made for; throws InvalidReceiptHandle on anything else. */
export const messageIdOf = (receiptHandle: string): string => {
  const match = SHAPE.exec(receiptHandle);
  if (!match) throw new InvalidReceiptHandle('The input receipt handle is invalid.');
  return Buffer.from(match[1] as string, 'base64url').toString();
};
