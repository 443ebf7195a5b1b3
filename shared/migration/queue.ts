import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { MigrationMessage } from './schemas.js';

/** Where migration work is queued: the first message of a migration and its continuations. */
export interface MigrationQueue {
  /** Queues a message, optionally delivered only after `delaySeconds` (SQS allows up to 900). */
  send(migrationId: string, delaySeconds?: number): Promise<void>;
}

export class SqsMigrationQueue implements MigrationQueue {
  constructor(
    private readonly client: SQSClient,
    readonly queueUrl: string,
  ) {}

  async send(migrationId: string, delaySeconds?: number): Promise<void> {
    const body: MigrationMessage = { migrationId };
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(body),
        ...(delaySeconds ? { DelaySeconds: delaySeconds } : {}),
      }),
    );
  }
}
