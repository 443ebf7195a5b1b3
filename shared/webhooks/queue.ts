import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { RetryMessage, RetryQueue } from './dispatcher.js';

/** The next attempts, on the webhooks queue, delayed (at most 900 s a hop: dispatcher.ts). */
export class SqsRetryQueue implements RetryQueue {
  constructor(
    private readonly client: SQSClient,
    readonly queueUrl: string,
  ) {}

  async send(message: RetryMessage, delaySeconds: number): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(message),
        ...(delaySeconds > 0 ? { DelaySeconds: delaySeconds } : {}),
      }),
    );
  }
}
