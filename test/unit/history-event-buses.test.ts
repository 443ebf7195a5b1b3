import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { beforeEach, describe, expect, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { EventBridgeBus, EventsNotPublishedError } from '#shared/events/eventbridge-bus.js';
import { type BusEvent, DETAIL_TYPES, EVENT_SOURCE } from '#shared/events/events.js';

const events = (count: number): BusEvent[] =>
  Array.from({ length: count }, (_, i) => ({
    detailType: DETAIL_TYPES.configChanged,
    source: EVENT_SOURCE,
    detail: { id: `change-${i}`, userId: 'alice' },
  }));

const NO_WAIT = { attempts: 3, baseMs: 0, maxMs: 0 };

describe('EventBridge', () => {
  const eventBridge = mockClient(EventBridgeClient);
  beforeEach(() => {
    eventBridge.reset();
  });

  test('PutEvents in batches of 10, each entry on the bus with its source, detail type and JSON detail', async () => {
    eventBridge
      .on(PutEventsCommand)
      .callsFake(({ Entries }) => ({ FailedEntryCount: 0, Entries: Entries.map(() => ({ EventId: 'e' })) }));
    await new EventBridgeBus(new EventBridgeClient({}), 'bus-1', NO_WAIT).publish(events(25));
    const calls = eventBridge.commandCalls(PutEventsCommand);
    expect(calls.map((call) => call.args[0].input.Entries?.length)).toEqual([10, 10, 5]);
    expect(calls[0]?.args[0].input.Entries?.[0]).toEqual({
      EventBusName: 'bus-1',
      Source: 'notification-preferences',
      DetailType: 'Notification Config Changed',
      Detail: JSON.stringify({ id: 'change-0', userId: 'alice' }),
    });
  });

  test('entries refused in a call are sent again, and only they', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce({
        FailedEntryCount: 1,
        Entries: [{ EventId: 'a' }, { ErrorCode: 'ThrottlingException' }, { EventId: 'c' }],
      })
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'b' }] });
    await new EventBridgeBus(new EventBridgeClient({}), 'bus-1', NO_WAIT).publish(events(3));
    const calls = eventBridge.commandCalls(PutEventsCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.args[0].input.Entries?.map((entry) => JSON.parse(entry.Detail ?? '{}').id)).toEqual(['change-1']);
  });

  test('entries still refused after the attempts fail the publish', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure' }] });
    await expect(new EventBridgeBus(new EventBridgeClient({}), 'bus-1', NO_WAIT).publish(events(1))).rejects.toThrow(
      EventsNotPublishedError,
    );
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(3);
  });
});
