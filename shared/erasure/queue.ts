import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ErasureMessage } from './schemas.js';

/** Where erasure work is queued: the first message of an erasure and its continuations. */
export interface ErasureQueue {
  send(erasureId: string, delaySeconds?: number): Promise<void>;
}

export class SqsErasureQueue implements ErasureQueue {
  constructor(
    private readonly client: SQSClient,
    readonly queueUrl: string,
  ) {}

  async send(erasureId: string, delaySeconds?: number): Promise<void> {
    const body: ErasureMessage = { erasureId };
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(body),
        ...(delaySeconds ? { DelaySeconds: delaySeconds } : {}),
      }),
    );
  }
}
