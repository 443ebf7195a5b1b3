import { type EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { type BackoffOptions, DEFAULT_BACKOFF, drainWithBackoff } from '#shared/platform/backoff.js';
import type { BusEvent, EventBus } from './events.js';

/** PutEvents takes at most 10 entries per call. */
export const PUT_EVENTS_LIMIT = 10;

export class EventsNotPublishedError extends Error {
  override readonly name = 'EventsNotPublishedError';
}

/**
 * EventBridge: PutEvents in batches of 10. PutEvents can accept some entries of a call and
 * refuse others (throttled, an internal failure): the refused ones are sent again with backoff,
 * and an error is thrown if some are still refused after the attempts.
 */
export class EventBridgeBus implements EventBus {
  constructor(
    private readonly client: EventBridgeClient,
    readonly busName: string,
    private readonly backoff: BackoffOptions = DEFAULT_BACKOFF,
  ) {}

  async publish(events: readonly BusEvent[]): Promise<void> {
    for (let start = 0; start < events.length; start += PUT_EVENTS_LIMIT) {
      const entries: PutEventsRequestEntry[] = events.slice(start, start + PUT_EVENTS_LIMIT).map((event) => ({
        EventBusName: this.busName,
        Source: event.source,
        DetailType: event.detailType,
        Detail: JSON.stringify(event.detail),
      }));
      const refused = await drainWithBackoff(
        entries,
        async (pending) => {
          const output = await this.client.send(new PutEventsCommand({ Entries: pending }));
          if (!output.FailedEntryCount) return undefined;
          // Results are in the order of the entries; a failed one has an ErrorCode.
          const again = pending.filter((_, index) => output.Entries?.[index]?.ErrorCode !== undefined);
          return again.length > 0 ? again : undefined;
        },
        this.backoff,
      );
      if (refused) throw new EventsNotPublishedError(`EventBridge refused ${refused.length} events after retries`);
    }
  }
}
