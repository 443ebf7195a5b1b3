import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { idField } from './kind.js';

/** Where a kind's work is queued: the first message of a job, its continuations and re-queues. */
export interface JobQueue {
  /** Queues a message, optionally delivered only after `delaySeconds` (SQS allows up to 900). */
  send(id: string, delaySeconds?: number): Promise<void>;
}

/** The body of a message on a kind's queue, `{"<idAttribute>": id}` (first delivery and continuations alike), read as the id. */
export const jobMessage = ({ idAttribute }: { idAttribute: string }) =>
  z.pipe(
    z.strictObject({ [idAttribute]: identifier(idAttribute) }),
    z.transform((body) => body[idAttribute] as string),
  );

export class SqsJobQueue implements JobQueue {
  constructor(
    private readonly kind: { idAttribute: string },
    private readonly client: SQSClient,
    readonly queueUrl: string,
  ) {}

  async send(id: string, delaySeconds?: number): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(idField(this.kind, id)),
        ...(delaySeconds ? { DelaySeconds: delaySeconds } : {}),
      }),
    );
  }
}
