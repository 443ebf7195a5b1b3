import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { EventBridgeBus } from '#shared/history/eventbridge-bus.js';
import type { EventBus } from '#shared/history/events.js';
import { FileEventBus } from '#shared/history/file-event-bus.js';
import { createPublisherHandler } from '#shared/history/publisher.js';
import { documentClient, MAX_ATTEMPTS } from '#shared/platform/aws-clients.js';
import { ENV, eventBusName, historyRetentionDays, tableName } from '#shared/platform/environment.js';

/**
 * The consumer of the config and migrations tables' streams (docs/design.md, Change history):
 * history items and events. On AWS the events go to EventBridge; the local twin sets
 * LOCAL_EVENTS_FILE instead (a file, or `-` for none) and LOCAL_EVENTS_PRINT to print them.
 */
const localEvents = process.env[ENV.localEventsFile];
const bus: EventBus =
  localEvents === undefined
    ? new EventBridgeBus(new EventBridgeClient({ maxAttempts: MAX_ATTEMPTS }), eventBusName())
    : new FileEventBus(
        localEvents === '-' ? undefined : localEvents,
        process.env[ENV.localEventsPrint] === '1' ? (line) => console.log(line) : undefined,
      );

export const handler = createPublisherHandler({
  history: new DynamoHistoryStore(documentClient, tableName('history')),
  bus,
  tables: { config: tableName('config'), migrations: tableName('migrations') },
  retentionDays: historyRetentionDays(),
});
