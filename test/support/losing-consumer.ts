import type { SQSEvent } from 'aws-lambda';
import type { QueueConsumer } from '#local/queue/queue.js';

/**
 * The real migration consumer, except that the first message of each migration vanishes
 * (acknowledged unread, as a purged dead-letter queue or a message deleted by hand would leave
 * it): what the sweeper and `npm run migrations` exist for. `lost` collects those migrations' ids.
 */
export const losingConsumer =
  (lost: Set<string>): QueueConsumer =>
  async (event, context) => {
    const kept: SQSEvent['Records'] = [];
    for (const record of event.Records) {
      const { migrationId } = JSON.parse(record.body) as { migrationId: string };
      if (lost.has(migrationId)) kept.push(record);
      else lost.add(migrationId);
    }
    if (kept.length === 0) return { batchItemFailures: [] };
    const { handler } = await import('#functions/migration-consumer.js');
    return handler({ Records: kept }, context);
  };
