import type { Delivery } from '#shared/jobs/delivery-policy.js';
import { jobMessage } from '#shared/jobs/queue.js';
import { maxReceiveCount } from '#shared/platform/environment.js';
import type { JobQueueName } from '#shared/platform/route.js';
import { queueConsumer } from './queue-consumer.js';

/**
 * The consumer of a kind of job's queue: each message names one job (`{"<idAttribute>": id}`),
 * which `run` delivers (the kind's run: shared/jobs/run.ts with its step); a dropped message is
 * logged as a "<kind> message", and the queue's maxReceiveCount marks the last attempt.
 */
export const jobConsumer = (
  kind: { name: string; idAttribute: string },
  queue: JobQueueName,
  run: (jobId: string, delivery: Delivery) => Promise<unknown>,
) =>
  queueConsumer({
    message: jobMessage(kind),
    name: `${kind.name} message`,
    maxReceiveCount: maxReceiveCount(queue),
    handle: run,
  });
