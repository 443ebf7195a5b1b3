import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { EventBridgeBus } from '#shared/history/eventbridge-bus.js';
import { createPublisherHandler } from '#shared/history/publisher.js';
import { historyRetentionDays } from '#shared/history/retention.js';
import { documentClient, MAX_ATTEMPTS } from '#shared/lambda/aws-clients.js';
import { ENV, requireEnv } from '#shared/lambda/environment.js';

/**
 * The consumer of the config and migrations tables' streams (docs/design.md, Change history):
 * history items and events on EventBridge.
 */
export const handler = createPublisherHandler({
  history: new DynamoHistoryStore(documentClient, requireEnv(ENV.historyTable)),
  bus: new EventBridgeBus(new EventBridgeClient({ maxAttempts: MAX_ATTEMPTS }), requireEnv(ENV.eventBusName)),
  tables: { config: requireEnv(ENV.configTable), migrations: requireEnv(ENV.migrationsTable) },
  retentionDays: historyRetentionDays(),
});
