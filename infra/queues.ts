import { type CfnResource, Duration, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { CONTROL_TOWER } from '#infra/guard-rules.js';
import {
  ERASURE_MAX_RECEIVE_COUNT,
  ERASURE_VISIBILITY_TIMEOUT_SECONDS,
  EXPORT_MAX_RECEIVE_COUNT,
  EXPORT_VISIBILITY_TIMEOUT_SECONDS,
  IMPORT_MAX_RECEIVE_COUNT,
  IMPORT_VISIBILITY_TIMEOUT_SECONDS,
  MIGRATION_MAX_RECEIVE_COUNT,
  MIGRATION_VISIBILITY_TIMEOUT_SECONDS,
  WEBHOOK_MAX_RECEIVE_COUNT,
  WEBHOOK_VISIBILITY_TIMEOUT_SECONDS,
} from '#service/functions.js';

/**
 * CloudFormation logical ids of the queues, as first deployed. A new logical id makes
 * CloudFormation replace the queue, and the messages in it (pending migrations, dead letters)
 * would be lost with the old one: moving the constructs in the tree must not change them.
 */
export const QUEUE_LOGICAL_IDS = {
  queue: 'MigrationQueue0B48C43A',
  deadLetterQueue: 'MigrationDeadLetterQueue934940CB',
} as const;

/** A work queue and the dead-letter queue behind it. */
export interface WorkQueues {
  queue: Queue;
  deadLetterQueue: Queue;
}

/**
 * SQS-managed encryption (SSE-SQS) for every queue: messages hold only identifiers, and a KMS key
 * would add a key policy, kms:GenerateDataKey/Decrypt grants to producers and the consumer, and a
 * KMS call per batch, for no control the service needs. TLS only.
 */
const QUEUE_DEFAULTS = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true } as const;
/** Dead letters and failure descriptions are kept 14 days (SQS's most) for an operator. */
const KEPT_FOR_AN_OPERATOR = { ...QUEUE_DEFAULTS, retentionPeriod: Duration.days(14) } as const;

interface WorkQueueSpec {
  /** Construct ids `${id}Queue` and `${id}DeadLetterQueue`. */
  id: 'Migration' | 'Erasure' | 'Webhook' | 'Export' | 'Import';
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  /** "migrations", "erasures": what its dead letters are, for the acknowledged rule. */
  holds: string;
}

const createWorkQueues = (scope: Construct, spec: WorkQueueSpec): WorkQueues => {
  const deadLetterQueue = new Queue(scope, `${spec.id}DeadLetterQueue`, KEPT_FOR_AN_OPERATOR);
  const queue = new Queue(scope, `${spec.id}Queue`, {
    ...QUEUE_DEFAULTS,
    visibilityTimeout: Duration.seconds(spec.visibilityTimeoutSeconds),
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: spec.maxReceiveCount },
  });
  Validations.of(deadLetterQueue).acknowledge({
    id: CONTROL_TOWER.queueDeadLetter,
    reason:
      `This is the dead-letter queue of the ${spec.id.toLowerCase()} queue: its messages are failed ${spec.holds} kept 14 days ` +
      'for an operator to redrive or delete, and nothing consumes them that could fail again.',
  });
  return { queue, deadLetterQueue };
};

/** The migration queue and its dead-letter queue, under the logical ids they were first deployed with. */
export const createMigrationQueues = (scope: Construct): WorkQueues => {
  const queues = createWorkQueues(scope, {
    id: 'Migration',
    visibilityTimeoutSeconds: MIGRATION_VISIBILITY_TIMEOUT_SECONDS,
    maxReceiveCount: MIGRATION_MAX_RECEIVE_COUNT,
    holds: 'migrations',
  });
  (queues.queue.node.defaultChild as CfnResource).overrideLogicalId(QUEUE_LOGICAL_IDS.queue);
  (queues.deadLetterQueue.node.defaultChild as CfnResource).overrideLogicalId(QUEUE_LOGICAL_IDS.deadLetterQueue);
  return queues;
};

/** The erasure queue and its dead-letter queue: as the migration queues, for erasure messages. */
export const createErasureQueues = (scope: Construct): WorkQueues =>
  createWorkQueues(scope, {
    id: 'Erasure',
    visibilityTimeoutSeconds: ERASURE_VISIBILITY_TIMEOUT_SECONDS,
    maxReceiveCount: ERASURE_MAX_RECEIVE_COUNT,
    holds: 'erasures',
  });

/** The export queue and its dead-letter queue: as the erasure queues, for export messages. */
export const createExportQueues = (scope: Construct): WorkQueues =>
  createWorkQueues(scope, {
    id: 'Export',
    visibilityTimeoutSeconds: EXPORT_VISIBILITY_TIMEOUT_SECONDS,
    maxReceiveCount: EXPORT_MAX_RECEIVE_COUNT,
    holds: 'exports',
  });

/** The import queue and its dead-letter queue: S3's notices of uploads, and the engine's import messages. */
export const createImportQueues = (scope: Construct): WorkQueues =>
  createWorkQueues(scope, {
    id: 'Import',
    visibilityTimeoutSeconds: IMPORT_VISIBILITY_TIMEOUT_SECONDS,
    maxReceiveCount: IMPORT_MAX_RECEIVE_COUNT,
    holds: 'imports',
  });

/**
 * The webhooks queue and its dead-letter queue: the bus's events (an EventBridge rule sends them)
 * and the retries the dispatcher queues. Its messages hold events' details, as the bus does.
 */
export const createWebhookQueues = (scope: Construct): WorkQueues =>
  createWorkQueues(scope, {
    id: 'Webhook',
    visibilityTimeoutSeconds: WEBHOOK_VISIBILITY_TIMEOUT_SECONDS,
    maxReceiveCount: WEBHOOK_MAX_RECEIVE_COUNT,
    holds: 'webhook deliveries',
  });

/**
 * Where the change publisher's event source mappings send a batch of stream records they gave up
 * on (its retries exhausted): a description of the batch (shard, sequence numbers), not the
 * records, kept 14 days for an operator to replay from the stream (24 hours) or to repair.
 */
export const createPublisherFailureQueue = (scope: Construct): Queue => {
  const queue = new Queue(scope, 'ChangePublisherFailureQueue', KEPT_FOR_AN_OPERATOR);
  const reason =
    "This is the on-failure destination of the change publisher's stream event sources (a dead-letter queue " +
    'in all but name): its messages describe batches of stream records that failed for good, for an ' +
    'operator; nothing consumes them that could fail again.';
  Validations.of(queue).acknowledge({ id: CONTROL_TOWER.queueDeadLetter, reason }, { id: 'AwsSolutions-SQS3', reason });
  return queue;
};
