import { streamConsumer } from '#shared/edge/stream-consumer.js';
import { EventBridgeBus } from '#shared/events/eventbridge-bus.js';
import type { EventBus } from '#shared/events/events.js';
import { FileEventBus } from '#shared/events/file-event-bus.js';
import { createPublisherHandler } from '#shared/events/publisher.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { ENV, eventBusName, historyRetentionDays, tableName } from '#shared/platform/environment.js';
import { eventBridgeClient } from '#shared/platform/events-client.js';

/**
 * The consumer of the config and migrations tables' streams (docs/design.md, Change history):
 * history items and events. On AWS the events go to EventBridge; the local twin sets
 * LOCAL_EVENTS_FILE instead (a file, or `-` for none) and LOCAL_EVENTS_PRINT to print them.
 */
const localEvents = process.env[ENV.localEventsFile];
const bus: EventBus =
  localEvents === undefined
    ? new EventBridgeBus(eventBridgeClient, eventBusName())
    : new FileEventBus(
        localEvents === '-' ? undefined : localEvents,
        process.env[ENV.localEventsPrint] === '1' ? (line) => console.log(line) : undefined,
      );

export const handler = streamConsumer(
  createPublisherHandler({
    history: new DynamoHistoryStore(documentClient, tableName('history')),
    bus,
    tables: { config: tableName('config'), migrations: tableName('migrations') },
    retentionDays: historyRetentionDays(),
  }),
);
