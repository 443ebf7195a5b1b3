import type { HistoryChange } from '#shared/history/results.js';

/** The `source` of every event the service publishes. */
export const EVENT_SOURCE = 'notification-preferences';

export const DETAIL_TYPES = {
  configChanged: 'Notification Config Changed',
  migrationCompleted: 'Document Migration Completed',
  migrationFailed: 'Document Migration Failed',
  userErased: 'User Erased',
  policyChanged: 'Notification Policy Changed',
} as const;
export type DetailType = (typeof DETAIL_TYPES)[keyof typeof DETAIL_TYPES];

/**
 * One event on the bus. Delivery is at least once: `detail.id` is stable across redeliveries
 * of the change behind it, for consumers to deduplicate on.
 */
export interface BusEvent {
  detailType: DetailType;
  source: typeof EVENT_SOURCE;
  detail: { id: string } & Record<string, unknown>;
}

/** Where events go: EventBridge on AWS (eventbridge-bus.ts), and locally its twin. */
export interface EventBus {
  /** Resolves once every event is accepted; throws when some could not be, after retries. */
  publish(events: readonly BusEvent[]): Promise<void>;
}

/** `Notification Config Changed`: the detail is the history item, its id the change's. */
export const configChangedEvent = (change: HistoryChange): BusEvent => ({
  detailType: DETAIL_TYPES.configChanged,
  source: EVENT_SOURCE,
  detail: { id: change.changeId, ...change },
});
