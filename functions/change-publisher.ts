import { streamConsumer } from '#shared/edge/stream-consumer.js';
import { EventBridgeBus } from '#shared/events/eventbridge-bus.js';
import { createPublisherHandler } from '#shared/events/publisher.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { eventBusName, historyRetentionDays, tableName } from '#shared/platform/environment.js';
import { eventBridgeClient } from '#shared/platform/events-client.js';

/**
 * The consumer of the config and migrations tables' streams (docs/design.md, Change history):
 * history items and events on EventBridge.
 */
export const handler = streamConsumer(
  createPublisherHandler({
    history: new DynamoHistoryStore(documentClient, tableName('history')),
    bus: new EventBridgeBus(eventBridgeClient, eventBusName()),
    tables: { config: tableName('config'), migrations: tableName('migrations') },
    retentionDays: historyRetentionDays(),
  }),
);
