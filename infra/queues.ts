import { type CfnResource, Duration, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { CONTROL_TOWER } from '#infra/guard-rules.js';
import {
  ERASURE_MAX_RECEIVE_COUNT,
  ERASURE_VISIBILITY_TIMEOUT_SECONDS,
  MIGRATION_MAX_RECEIVE_COUNT,
  MIGRATION_VISIBILITY_TIMEOUT_SECONDS,
} from '#shared/deployment/functions.js';

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

/** The erasure queue and its dead-letter queue: as the migration queues, for erasure messages. */
export const createErasureQueues = (scope: Construct): MigrationQueues => {
  const deadLetterQueue = new Queue(scope, 'ErasureDeadLetterQueue', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  const queue = new Queue(scope, 'ErasureQueue', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    visibilityTimeout: Duration.seconds(ERASURE_VISIBILITY_TIMEOUT_SECONDS),
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: ERASURE_MAX_RECEIVE_COUNT },
  });
  Validations.of(deadLetterQueue).acknowledge({
    id: CONTROL_TOWER.queueDeadLetter,
    reason:
      'This is the dead-letter queue of the erasure queue: its messages are failed erasures kept 14 days ' +
      'for an operator to redrive or delete, and nothing consumes them that could fail again.',
  });
  return { queue, deadLetterQueue };
};

/**
 * Where the change publisher's event source mappings send a batch of stream records they gave up
 * on (its retries exhausted): a description of the batch (shard, sequence numbers), not the
 * records, kept 14 days for an operator to replay from the stream (24 hours) or to repair.
 */
export const createPublisherFailureQueue = (scope: Construct): Queue => {
  const queue = new Queue(scope, 'ChangePublisherFailureQueue', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  const reason =
    "This is the on-failure destination of the change publisher's stream event sources (a dead-letter queue " +
    'in all but name): its messages describe batches of stream records that failed for good, for an ' +
    'operator; nothing consumes them that could fail again.';
  Validations.of(queue).acknowledge({ id: CONTROL_TOWER.queueDeadLetter, reason }, { id: 'AwsSolutions-SQS3', reason });
  return queue;
};
