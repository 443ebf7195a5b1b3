import { appendFile, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { type LocalEventBridge, startLocalEventBridge } from '#local/events/local-event-bridge.js';
import { EventBridgeBus } from '#shared/events/eventbridge-bus.js';
import { type BusEvent, DETAIL_TYPES, EVENT_SOURCE } from '#shared/events/events.js';

// The EventBridge twin through the real SDK v3 EventBridgeClient (AWS JSON 1.1), and through the
// change publisher's own adapter: what lands in events.jsonl, what is printed, what it answers.
const BUS = 'bus-1';
let dir: string;
let twin: LocalEventBridge | undefined;
let client: EventBridgeClient | undefined;
const printed: string[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'eventbridge-twin-'));
});
afterEach(async () => {
  client?.destroy();
  client = undefined;
  await twin?.close();
  twin = undefined;
  printed.length = 0;
  await rm(dir, { recursive: true, force: true });
});

const setUp = async (options: { maxFileBytes?: number; file?: string | null } = {}) => {
  const file = options.file === null ? undefined : (options.file ?? join(dir, 'events.jsonl'));
  twin = await startLocalEventBridge({
    accessKeyId: 'local',
    busName: BUS,
    ...(file ? { file } : {}),
    ...(options.maxFileBytes ? { maxFileBytes: options.maxFileBytes } : {}),
    print: (line) => printed.push(line),
  });
  client = new EventBridgeClient({
    endpoint: twin.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  return { file: file as string, client };
};

const events = (count: number, from = 0): BusEvent[] =>
  Array.from({ length: count }, (_, i) => ({
    detailType: DETAIL_TYPES.configChanged,
    source: EVENT_SOURCE,
    detail: { id: `change-${from + i}`, userId: 'alice' },
  }));

const lines = async (file: string) =>
  (await readFile(file, 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { 'detail-type': string; source: string; detail: { id: string } });

const entry = (id: string): PutEventsRequestEntry => ({
  EventBusName: BUS,
  Source: EVENT_SOURCE,
  DetailType: DETAIL_TYPES.configChanged,
  Detail: JSON.stringify({ id }),
});

test('the publisher adapter: one JSON line per event with EventBridge field names, in order, and one printed line each', async () => {
  const { file, client } = await setUp();
  const bus = new EventBridgeBus(client, BUS);
  await bus.publish(events(12));
  await bus.publish(events(1, 12));
  expect(await lines(file)).toEqual(
    events(13).map((event) => ({ 'detail-type': event.detailType, source: event.source, detail: event.detail })),
  );
  // The file's own text: exactly what npm start wrote before the twin existed.
  expect((await readFile(file, 'utf8')).split('\n')[0]).toBe(
    '{"detail-type":"Notification Config Changed","source":"notification-preferences","detail":{"id":"change-0","userId":"alice"}}',
  );
  expect(printed).toHaveLength(13);
  expect(printed[0]).toBe('event  Notification Config Changed  change-0');
});

test("PutEvents answers EventBridge's shape: an EventId per accepted entry, a refused entry on its own, FailedEntryCount", async () => {
  const { file, client } = await setUp();
  const output = await client.send(
    new PutEventsCommand({
      Entries: [
        entry('a'),
        { ...entry('b'), Detail: '{not json' },
        { ...entry('c'), Source: undefined },
        { ...entry('d'), EventBusName: 'another-bus' },
        { ...entry('e'), Detail: '[1,2]' },
        { ...entry('f'), EventBusName: `arn:aws:events:local:000000000000:event-bus/${BUS}` },
      ],
    }),
  );
  expect(output.FailedEntryCount).toBe(4);
  expect(output.Entries).toEqual([
    { EventId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' },
    { ErrorCode: 'InvalidArgument', ErrorMessage: expect.stringContaining('Source') },
    { ErrorCode: 'ResourceNotFoundException', ErrorMessage: expect.stringContaining('another-bus') },
    { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' },
    { EventId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
  ]);
  expect((await lines(file)).map((line) => line.detail.id)).toEqual(['a', 'f']);
});

test('a request over the limits is refused whole: more than 10 entries, none, or over 256 KiB', async () => {
  const { file, client } = await setUp();
  await expect(
    client.send(new PutEventsCommand({ Entries: Array.from({ length: 11 }, (_, i) => entry(`e${i}`)) })),
  ).rejects.toMatchObject({ name: 'ValidationException' });
  await expect(client.send(new PutEventsCommand({ Entries: [] }))).rejects.toMatchObject({
    name: 'ValidationException',
  });
  const big = { ...entry('big'), Detail: JSON.stringify({ id: 'big', pad: 'x'.repeat(260 * 1024) }) };
  await expect(client.send(new PutEventsCommand({ Entries: [big] }))).rejects.toMatchObject({
    name: 'ValidationException',
  });
  expect(await lines(file)).toEqual([]);
});

test('other operations and malformed bodies get an error, never a crash of the twin', async () => {
  const { client } = await setUp();
  const endpoint = twin?.endpoint as string;
  const post = (target: string, body: string) =>
    fetch(endpoint, {
      method: 'POST',
      headers: {
        'x-amz-target': target,
        'content-type': 'application/x-amz-json-1.1',
        authorization:
          'AWS4-HMAC-SHA256 Credential=local/20200101/local/x/aws4_request, SignedHeaders=host, Signature=0',
      },
      body,
    });
  expect((await post('AWSEvents.ListRules', '{}')).status).toBe(400);
  expect((await post('AWSEvents.PutEvents', '{"Entries":')).status).toBe(400);
  expect((await post('AWSEvents.PutEvents', 'null')).status).toBe(400);
  expect((await post('AWSEvents.PutEvents', '{"Entries":[null]}')).status).toBe(400);
  const output = await client.send(new PutEventsCommand({ Entries: [entry('still-up')] }));
  expect(output.FailedEntryCount).toBe(0);
});

describe('the events file is bounded', () => {
  test('past the size it becomes events.1.jsonl (replacing the one before); no line is split or lost in between', async () => {
    const maxFileBytes = 4 * 1024;
    const { file, client } = await setUp({ maxFileBytes });
    const bus = new EventBridgeBus(client, BUS);
    for (let i = 0; i < 60; i++) await bus.publish(events(5, i * 5));
    const rotated = join(dir, 'events.1.jsonl');
    const [current, previous] = [await lines(file), await lines(rotated)];
    // The two files end with the last events, in order, each within the limit.
    const ids = [...previous, ...current].map((line) => line.detail.id);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => `change-${300 - ids.length + i}`));
    expect(current.length).toBeGreaterThan(0);
    expect(previous.length).toBeGreaterThan(0);
    for (const path of [file, rotated]) expect((await stat(path)).size).toBeLessThanOrEqual(maxFileBytes);
  });

  test('a file already past the size (an older twin kept everything) is rotated at the first event', async () => {
    const file = join(dir, 'events.jsonl');
    await appendFile(
      file,
      `${JSON.stringify({ 'detail-type': 'old', source: 'old', detail: { id: 'old' } })}\n`.repeat(200),
    );
    const { client } = await setUp({ file, maxFileBytes: 4 * 1024 });
    await new EventBridgeBus(client, BUS).publish(events(1));
    expect((await lines(file)).map((line) => line.detail.id)).toEqual(['change-0']);
    expect((await lines(join(dir, 'events.1.jsonl'))).every((line) => line.detail.id === 'old')).toBe(true);
  });

  test('a last line cut short by a crash is left alone: the next event starts a line of its own', async () => {
    const file = join(dir, 'events.jsonl');
    await appendFile(file, '{"detail-type":"Notification Config Changed","source":"notif');
    const { client } = await setUp({ file });
    await new EventBridgeBus(client, BUS).publish(events(1));
    const text = (await readFile(file, 'utf8')).split('\n');
    expect(JSON.parse(text[1] as string).detail.id).toBe('change-0');
  });
});

test('in memory: events are printed, nothing is written', async () => {
  const { client } = await setUp({ file: null });
  await new EventBridgeBus(client, BUS).publish(events(2));
  expect(printed).toEqual([
    'event  Notification Config Changed  change-0',
    'event  Notification Config Changed  change-1',
  ]);
});
