import { type EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import { WEBHOOK_BATCH_SIZE, WEBHOOK_VISIBILITY_TIMEOUT_SECONDS } from '#service/functions.js';
import { EVENT_SOURCE } from '#shared/events/events.js';
import { MAX_DELAY_SECONDS, WEBHOOK_EVENT_TYPES } from '#shared/webhooks/model.js';
import type { DeadLetters, ServiceAlarms } from './constructs/service-alarms.js';
import type { WorkQueues } from './queues.js';

/*
 * Webhooks in the stack (docs/api.md, Webhooks): the bus's events an endpoint can subscribe to go
 * to the webhooks queue by a rule; the dispatcher consumes it, and queues its retries there too.
 */

/** The rule that puts the subscribable events on the webhooks queue; what it cannot put there goes to the queue's dead letters. */
export const routeEventsToWebhooks = (scope: Construct, eventBus: EventBus, queues: WorkQueues): Rule =>
  new Rule(scope, 'WebhookEventsRule', {
    description: "Sends the service's events to the webhooks queue",
    eventBus,
    eventPattern: { source: [EVENT_SOURCE], detailType: Object.values(WEBHOOK_EVENT_TYPES) },
    targets: [new SqsQueue(queues.queue, { deadLetterQueue: queues.deadLetterQueue })],
  });

/** The dispatcher's event source: batches, with no batching window (the first attempt leaves at once). */
export const consumeWebhooks = (dispatcher: IFunction, queues: WorkQueues, maxConcurrency: number): void =>
  dispatcher.addEventSource(
    new SqsEventSource(queues.queue, { batchSize: WEBHOOK_BATCH_SIZE, reportBatchItemFailures: true, maxConcurrency }),
  );

const WEBHOOK_DEAD_LETTERS: DeadLetters = {
  notEmpty:
    'Webhook messages are in the dead-letter queue: events the dispatcher could not handle (the stores, the ' +
    'queue or the link keys failing, not an endpoint: those failures are retried on their schedule), or that ' +
    'EventBridge could not queue. Inspect the dispatcher logs, then redrive them to the webhooks queue (docs/operations.md).',
  growing:
    'More webhook messages reached the dead-letter queue in the last 5 minutes. See the NotEmpty alarm for what to do.',
};

/**
 * The webhooks queue's alarms. A retry waits up to SQS's longest delay before it is visible:
 * older than that and half a visibility timeout more, the dispatcher is failing or does not keep up.
 */
export const watchWebhooks = (alarms: ServiceAlarms, queues: WorkQueues): void => {
  alarms.addDeadLetterQueue('WebhookDeadLetterQueue', queues.deadLetterQueue, WEBHOOK_DEAD_LETTERS);
  alarms.addQueueAge(
    'WebhookQueueOldestMessage',
    queues.queue,
    MAX_DELAY_SECONDS + WEBHOOK_VISIBILITY_TIMEOUT_SECONDS / 2,
    'webhook',
  );
};
