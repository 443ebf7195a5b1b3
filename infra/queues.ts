import { type CfnResource, Duration, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { CONTROL_TOWER } from '#infra/guard-rules.js';
import { MIGRATION_MAX_RECEIVE_COUNT, MIGRATION_VISIBILITY_TIMEOUT_SECONDS } from '#shared/deployment/functions.js';

/**
 * CloudFormation logical ids of the queues, as first deployed. A new logical id makes
 * CloudFormation replace the queue, and the messages in it (pending migrations, dead letters)
 * would be lost with the old one: moving the constructs in the tree must not change them.
 */
export const QUEUE_LOGICAL_IDS = {
  queue: 'MigrationQueue0B48C43A',
  deadLetterQueue: 'MigrationDeadLetterQueue934940CB',
} as const;

export interface MigrationQueues {
  queue: Queue;
  deadLetterQueue: Queue;
}

/**
 * The migration queue and its dead-letter queue. SQS-managed encryption (SSE-SQS): messages
 * hold only identifiers, and a KMS key would add a key policy, kms:GenerateDataKey/Decrypt
 * grants to producers and the consumer, and a KMS call per batch, for no control the service needs.
 */
export const createMigrationQueues = (scope: Construct): MigrationQueues => {
  const deadLetterQueue = new Queue(scope, 'MigrationDeadLetterQueue', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  const queue = new Queue(scope, 'MigrationQueue', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    visibilityTimeout: Duration.seconds(MIGRATION_VISIBILITY_TIMEOUT_SECONDS),
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: MIGRATION_MAX_RECEIVE_COUNT },
  });
  Validations.of(deadLetterQueue).acknowledge({
    id: CONTROL_TOWER.queueDeadLetter,
    reason:
      'This is the dead-letter queue of the migration queue: its messages are failed migrations kept 14 days ' +
      'for an operator to redrive or delete, and nothing consumes them that could fail again.',
  });
  (queue.node.defaultChild as CfnResource).overrideLogicalId(QUEUE_LOGICAL_IDS.queue);
  (deadLetterQueue.node.defaultChild as CfnResource).overrideLogicalId(QUEUE_LOGICAL_IDS.deadLetterQueue);
  return { queue, deadLetterQueue };
};
