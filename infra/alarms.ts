import type { RemovalPolicy } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { ServiceConfig } from '#infra/stage-settings.js';
import { ERASURE_VISIBILITY_TIMEOUT_SECONDS, MIGRATION_VISIBILITY_TIMEOUT_SECONDS } from '#service/functions.js';
import { type DeadLetters, ServiceAlarms } from './constructs/service-alarms.js';
import type { ServiceFunction } from './constructs/service-function.js';
import type { WorkQueues } from './queues.js';
import { watchWebhooks } from './webhooks.js';

/** The publisher more than this far behind its stream: changes reach the history late (the contract says within seconds). */
export const PUBLISHER_ITERATOR_AGE_SECONDS = 60;

export interface WatchedParts {
  config: ServiceConfig;
  removalPolicy: RemovalPolicy;
  migrationQueues: WorkQueues;
  erasureQueues: WorkQueues;
  webhookQueues: WorkQueues;
  exportQueues: WorkQueues;
  importQueues: WorkQueues;
  publisherFailures: Queue;
  /** Every function, by the id its alarms are named after; the change publisher among them. */
  functions: Record<string, ServiceFunction> & { ChangePublisher: ServiceFunction };
  api: HttpApi;
}

/**
 * The service's alarms (infra/constructs/service-alarms.ts) on what the stack made: the queues'
 * dead letters and oldest messages, the change publisher's lag, every function, the account's
 * concurrency and the API's 5xx rate.
 */
export const watchService = (
  scope: Construct,
  {
    config,
    removalPolicy,
    migrationQueues,
    erasureQueues,
    webhookQueues,
    exportQueues,
    importQueues,
    publisherFailures,
    functions,
    api,
  }: WatchedParts,
): ServiceAlarms => {
  const alarms = new ServiceAlarms(scope, 'Alarms', {
    removalPolicy,
    ...(config.alarmEmail ? { alarmEmail: config.alarmEmail } : {}),
  });
  alarms.addDeadLetterQueue('MigrationDeadLetterQueue', migrationQueues.deadLetterQueue);
  // A message seen again after a failure is at least one visibility timeout old; half of it
  // is already more than a healthy migration message waits.
  alarms.addQueueAge('MigrationQueueOldestMessage', migrationQueues.queue, MIGRATION_VISIBILITY_TIMEOUT_SECONDS / 2);
  alarms.addDeadLetterQueue('ErasureDeadLetterQueue', erasureQueues.deadLetterQueue, ERASURE_DEAD_LETTERS);
  alarms.addQueueAge(
    'ErasureQueueOldestMessage',
    erasureQueues.queue,
    ERASURE_VISIBILITY_TIMEOUT_SECONDS / 2,
    'erasure',
  );
  watchWebhooks(alarms, webhookQueues);
  alarms.addDeadLetterQueue('ExportDeadLetterQueue', exportQueues.deadLetterQueue, EXPORT_DEAD_LETTERS);
  alarms.addDeadLetterQueue('ImportDeadLetterQueue', importQueues.deadLetterQueue, IMPORT_DEAD_LETTERS);
  alarms.addDeadLetterQueue('ChangePublisherFailureQueue', publisherFailures, PUBLISHER_FAILURES);
  alarms.addIteratorAge(
    'ChangePublisherIteratorAge',
    functions.ChangePublisher.function,
    PUBLISHER_ITERATOR_AGE_SECONDS,
  );
  for (const [id, fn] of Object.entries(functions)) {
    alarms.addFunction(id, fn.function, fn.timeoutSeconds);
  }
  alarms.addAccountConcurrency('AccountConcurrency', config.accountConcurrencyLimit);
  alarms.addApi('Api5xxRate', api);
  return alarms;
};

const ERASURE_DEAD_LETTERS: DeadLetters = {
  notEmpty:
    'Erasure messages are in the dead-letter queue: those erasures are marked failed, and the users ' +
    'may be partly erased. Inspect the consumer logs, then start the erasures again (docs/operations.md).',
  growing:
    'More erasure messages reached the dead-letter queue in the last 5 minutes: new erasures failed ' +
    'for good. See the NotEmpty alarm for what to do.',
};

const IMPORT_DEAD_LETTERS: DeadLetters = {
  notEmpty:
    'Import messages are in the dead-letter queue: those imports are marked failed, their counts saying what ' +
    'was applied. Inspect the consumer logs; the caller imports the file again (applied rows count as unchanged).',
  growing: 'More import messages reached the dead-letter queue in the last 5 minutes. See the NotEmpty alarm.',
};

const EXPORT_DEAD_LETTERS: DeadLetters = {
  notEmpty:
    'Export messages are in the dead-letter queue: those exports are marked failed and wrote no file. ' +
    'Inspect the consumer logs; the caller starts another export.',
  growing: 'More export messages reached the dead-letter queue in the last 5 minutes. See the NotEmpty alarm.',
};

const PUBLISHER_FAILURES: DeadLetters = {
  notEmpty:
    'The change publisher gave up on a batch of stream records: those changes may be missing from ' +
    'the history and the event bus. Follow the runbook in docs/operations.md before the stream drops them (24 h).',
  growing:
    'More batches of stream records failed for good in the last 5 minutes. See the NotEmpty alarm for what to do.',
};
