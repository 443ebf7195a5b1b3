import {
  GetQueueAttributesCommand,
  type Message,
  paginateListQueues,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { PUBLISHER_FAILURES_QUEUE_NAME } from '#local/service-queues.js';
import { printable, table } from '../cli/output.js';

/**
 * The twin's queues with their depth, and the messages of those nothing consumes: the
 * dead-letter queues and the change publisher's on-failure queue. Those are read with a receive
 * of visibility 0, which leaves them where they are (SQS counts the read as a receive). A queue
 * with a consumer is never read: a receive there would count against its messages' retries.
 */

/** SQS hands out at most 10 messages per receive. */
export const MAX_SHOWN_MESSAGES = 10;

const nameOf = (url: string) => url.split('/').at(-1) ?? url;
const nameOfArn = (arn: string) => arn.split(':').at(-1) ?? arn;

const deadLetterTarget = (attributes: Record<string, string>): string | undefined => {
  try {
    const policy = JSON.parse(attributes.RedrivePolicy ?? '') as { deadLetterTargetArn?: unknown };
    return typeof policy.deadLetterTargetArn === 'string' ? nameOfArn(policy.deadLetterTargetArn) : undefined;
  } catch {
    return undefined;
  }
};

const time = (epochMs: string | undefined) => {
  const date = new Date(Number(epochMs));
  return Number.isNaN(date.getTime()) ? 'unknown' : date.toISOString();
};

const messageLines = (message: Message): string[] => {
  const attributes = message.Attributes ?? {};
  const source = attributes.DeadLetterQueueSourceArn;
  return [
    printable(
      `    ${message.MessageId}  sent ${time(attributes.SentTimestamp)}` +
        (source ? `, dead-lettered from ${nameOfArn(source)}` : ''),
    ),
    printable(`      ${message.Body ?? ''}`),
  ];
};

export const inspectQueues = async (sqs: SQSClient, limit: number): Promise<string[]> => {
  const urls: string[] = [];
  for await (const page of paginateListQueues({ client: sqs }, {})) urls.push(...(page.QueueUrls ?? []));
  const queues = await Promise.all(
    urls.map(async (url) => ({
      url,
      name: nameOf(url),
      attributes:
        (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }))).Attributes ?? {},
    })),
  );
  const sourceOf = new Map(
    queues.flatMap((queue) => {
      const target = deadLetterTarget(queue.attributes);
      return target ? [[target, queue.name] as const] : [];
    }),
  );
  const unconsumed = (name: string) => sourceOf.has(name) || name === PUBLISHER_FAILURES_QUEUE_NAME;
  const note = ({ name, attributes }: (typeof queues)[number]) => {
    const target = deadLetterTarget(attributes);
    if (target) return `dead letters go to ${target}`;
    if (sourceOf.has(name)) return `the dead letters of ${sourceOf.get(name)}`;
    if (name === PUBLISHER_FAILURES_QUEUE_NAME) return 'stream batches the change publisher gave up on';
    return '';
  };
  // Each queue, then its dead-letter queue.
  const ordered = queues
    .filter((queue) => !sourceOf.has(queue.name))
    .flatMap((queue) => {
      const target = queues.find((other) => other.name === deadLetterTarget(queue.attributes));
      return target ? [queue, target] : [queue];
    });
  const lines = [
    'Queues:',
    ...table([
      ['  queue', 'waiting', 'in flight', 'delayed', ''],
      ...ordered.map((queue) => [
        printable(`  ${queue.name}`),
        queue.attributes.ApproximateNumberOfMessages ?? '?',
        queue.attributes.ApproximateNumberOfMessagesNotVisible ?? '?',
        queue.attributes.ApproximateNumberOfMessagesDelayed ?? '?',
        printable(note(queue)),
      ]),
    ]).split('\n'),
  ];
  for (const queue of ordered.filter(
    ({ name, attributes }) => unconsumed(name) && attributes.ApproximateNumberOfMessages !== '0',
  )) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queue.url,
        MaxNumberOfMessages: Math.min(limit > 0 ? limit : MAX_SHOWN_MESSAGES, MAX_SHOWN_MESSAGES),
        VisibilityTimeout: 0,
        MessageSystemAttributeNames: ['SentTimestamp', 'DeadLetterQueueSourceArn'],
      }),
    );
    const waiting = Number(queue.attributes.ApproximateNumberOfMessages);
    lines.push('', printable(`  ${queue.name}: ${Messages.length} of ${waiting} message(s), oldest first`));
    for (const message of Messages) lines.push(...messageLines(message));
  }
  return lines;
};
