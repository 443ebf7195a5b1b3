import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { newKeyMaterial, newKeyringDocument, staticKeyring } from '#shared/links/keyring.js';
import {
  type DispatcherDeps,
  type DispatcherMessage,
  dispatch,
  dispatcherMessage,
  type RetryMessage,
} from '#shared/webhooks/dispatcher.js';
import { DynamoDeliveryLog, DynamoWebhookStore } from '#shared/webhooks/dynamo-store.js';
import { sendTo } from '#shared/webhooks/send.js';
import { getWebhookDeliveries, getWebhooks, rotateWebhookSecret, setWebhooks } from '#shared/webhooks/service.js';
import { uniqueId, useTestDynamo } from '../support/dynamo.js';

const dynamo = useTestDynamo();
const firstKeys = newKeyringDocument('k1');
const keys = staticKeyring(firstKeys);

/** A receiver on loopback: answers each request with what `answer` says, and keeps what came. */
interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  path: string;
}
let server: Server;
let port = 0;
let received: Received[] = [];
let answer: (request: Received) => { status: number; headers?: Record<string, string> } = () => ({ status: 204 });

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const one = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), path: request.url ?? '' };
      received.push(one);
      const { status, headers } = answer(one);
      response.writeHead(status, headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

let org = '';
let clock = new Date('2026-12-07T10:00:00.000Z');
let queued: { message: RetryMessage; delaySeconds: number }[] = [];
let deps: DispatcherDeps;
const store = () => new DynamoWebhookStore(dynamo.doc, dynamo.tables.config);
const log = () => new DynamoDeliveryLog(dynamo.doc, dynamo.tables.history);

beforeEach(() => {
  org = uniqueId('acme#hooks');
  received = [];
  queued = [];
  answer = () => ({ status: 204 });
  clock = new Date();
  deps = {
    endpoints: store(),
    deliveries: log(),
    retries: {
      send: async (message, delaySeconds) => {
        queued.push({ message, delaySeconds });
      },
    },
    keys,
    send: sendTo,
    allowLoopback: true,
    // A compressed schedule: every retry due at once.
    schedule: [0, 0, 0, 0, 0, 0, 0],
    now: () => clock,
  };
});

const routeDeps = () => ({ store: store(), keys, allowLoopback: true, now: () => clock });
const addEndpoint = async (path = '/hooks', eventTypes?: ('preference.changed' | 'user.erased')[]) => {
  const set = await setWebhooks(
    routeDeps(),
    {
      organizationId: org,
      endpoints: [{ url: `http://127.0.0.1:${port}${path}`, ...(eventTypes ? { eventTypes } : {}) }],
    },
    'key1',
  );
  return set.endpoints[0] as { id: string; secret: string };
};

/** A bus event as EventBridge puts it on the queue. */
const busEvent = (id: string, detailType = 'Notification Config Changed'): DispatcherMessage =>
  dispatcherMessage.parse({
    version: '0',
    id: `eb-${id}`,
    'detail-type': detailType,
    source: 'notification-preferences',
    time: '2026-12-07T10:00:00Z',
    detail: { id, organizationId: org, userId: 'alice', documentId: 'doc-1', before: {}, after: { email: 'NONE' } },
  });

/** Dispatches the queued retries until none is left (the compressed schedule makes each due at once). */
const drain = async () => {
  while (queued.length > 0) {
    const next = queued.shift() as { message: RetryMessage };
    await dispatch(deps, dispatcherMessage.parse(JSON.parse(JSON.stringify(next.message))));
  }
};

const verify = (secret: string, request: Received) =>
  new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  });

describe('the webhook dispatcher', () => {
  test('a delivery is the Standard Webhooks request: every signature verifies with the official library', async () => {
    const endpoint = await addEndpoint();
    await dispatch(deps, busEvent('change-1'));
    expect(received).toHaveLength(1);
    const [request] = received as [Received];
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['webhook-id']).toBe('change-1');
    expect(verify(endpoint.secret, request)).toEqual({
      type: 'preference.changed',
      timestamp: '2026-12-07T10:00:00Z',
      data: {
        id: 'change-1',
        organizationId: org,
        userId: 'alice',
        documentId: 'doc-1',
        before: {},
        after: { email: 'NONE' },
      },
    });
    const { deliveries } = await getWebhookDeliveries(
      { deliveries: log() },
      { organizationId: org, endpointId: endpoint.id },
    );
    expect(deliveries).toEqual([
      expect.objectContaining({ eventId: 'change-1', type: 'preference.changed', attempt: 1, statusCode: 204 }),
    ]);
    expect(deliveries[0]?.nextAttemptAt).toBeUndefined();
  });

  test('across a rotation: both secrets verify for 24 hours after it, then only the new one', async () => {
    const endpoint = await addEndpoint();
    const rotate = (at: Date) =>
      rotateWebhookSecret({ ...routeDeps(), now: () => at }, { organizationId: org, endpointId: endpoint.id });
    // A rotation 25 hours ago: the replaced secret signs no more.
    const first = await rotate(new Date(clock.getTime() - 25 * 3_600_000));
    await dispatch(deps, busEvent('change-1'));
    const [after] = received as [Received];
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verify(first.secret, after)).toMatchObject({ data: { id: 'change-1' } });
    expect(() => verify(endpoint.secret, after)).toThrow();
    // A rotation now: both sign, each verifies on its own.
    const second = await rotate(clock);
    await dispatch(deps, busEvent('change-2'));
    const during = received[1] as Received;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(first.secret, during)).toMatchObject({ data: { id: 'change-2' } });
    expect(verify(second.secret, during)).toMatchObject({ data: { id: 'change-2' } });
    expect(() => verify(endpoint.secret, during)).toThrow();
  });

  test('a receiver that fails 20% of its answers still gets every event', async () => {
    const endpoint = await addEndpoint();
    // A fixed pseudo-random sequence: the same run every time.
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    answer = () => ({ status: random() < 0.2 ? 503 : 200 });
    const ids = Array.from({ length: 60 }, (_, i) => `change-${i}`);
    for (const id of ids) await dispatch(deps, busEvent(id));
    await drain();
    const failures = received.length - ids.length;
    expect(failures).toBeGreaterThan(0);
    const verified = new Set(
      received.map((request) => (verify(endpoint.secret, request) as { data: { id: string } }).data.id),
    );
    expect([...verified].sort()).toEqual([...ids].sort());
    // Every attempt is recorded: one delivered per event, and each failure with its next attempt.
    const page = await getWebhookDeliveries({ deliveries: log() }, { organizationId: org, endpointId: endpoint.id });
    const all = [...page.deliveries];
    let cursor = page.nextCursor;
    while (cursor) {
      const next = await getWebhookDeliveries(
        { deliveries: log() },
        { organizationId: org, endpointId: endpoint.id, cursor },
      );
      all.push(...next.deliveries);
      cursor = next.nextCursor;
    }
    expect(all.filter((one) => one.statusCode === 200)).toHaveLength(ids.length);
    expect(all.filter((one) => one.statusCode === 503).every((one) => one.nextAttemptAt !== undefined)).toBe(true);
  });

  test('410 Gone disables the endpoint at once: no retry, and no later event', async () => {
    const endpoint = await addEndpoint();
    answer = () => ({ status: 410 });
    await dispatch(deps, busEvent('change-1'));
    expect(queued).toEqual([]);
    expect((await getWebhooks(routeDeps(), { organizationId: org })).endpoints).toEqual([
      expect.objectContaining({ id: endpoint.id, disabled: true, disabledReason: 'gone' }),
    ]);
    await dispatch(deps, busEvent('change-2'));
    expect(received).toHaveLength(1);
  });

  test('a redirect is a failure, never followed; the 8th failed attempt is the last', async () => {
    await addEndpoint();
    answer = () => ({ status: 302, headers: { location: `http://127.0.0.1:${port}/elsewhere` } });
    await dispatch(deps, busEvent('change-1'));
    await drain();
    expect(received.map(({ path }) => path)).toEqual(Array(8).fill('/hooks'));
  });

  test('an endpoint whose every attempt failed for 5 days is disabled', async () => {
    const endpoint = await addEndpoint();
    answer = () => ({ status: 500 });
    await dispatch(deps, busEvent('change-1'));
    queued = [];
    clock = new Date(clock.getTime() + 5 * 24 * 3_600_000);
    await dispatch(deps, busEvent('change-2'));
    expect((await getWebhooks(routeDeps(), { organizationId: org })).endpoints[0]).toMatchObject({
      id: endpoint.id,
      disabled: true,
      disabledReason: 'failing',
    });
  });

  test('events go only to endpoints that subscribe to their type, and not to a disabled one', async () => {
    await setWebhooks(
      routeDeps(),
      {
        organizationId: org,
        endpoints: [
          { url: `http://127.0.0.1:${port}/erasures`, eventTypes: ['user.erased'] },
          { url: `http://127.0.0.1:${port}/all` },
          { url: `http://127.0.0.1:${port}/off`, disabled: true },
        ],
      },
      'k',
    );
    await dispatch(deps, busEvent('change-1'));
    await dispatch(deps, busEvent('erasure:e1:completed', 'User Erased'));
    expect(received.map(({ path, headers }) => `${path} ${headers['webhook-id']}`).sort()).toEqual([
      '/all change-1',
      '/all erasure:e1:completed',
      '/erasures erasure:e1:completed',
    ]);
  });

  test('each send checks the address again and connects to the one it checked, with the name as Host', async () => {
    const endpoint = await addEndpoint();
    await setWebhooks(
      routeDeps(),
      { organizationId: org, endpoints: [{ id: endpoint.id, url: `http://localhost:${port}/hooks` }] },
      'k',
    );
    // The name resolves to loopback (allowed on the twin): the request reaches it, named, at its
    // IPv4 address (the receiver listens on 127.0.0.1 only).
    const both = async () => [
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ];
    await dispatch({ ...deps, resolve: both }, busEvent('change-1'));
    expect(received[0]?.headers.host).toBe(`localhost:${port}`);
    // Deployed (no loopback), the same name is refused at the send: nothing is called, the attempt is recorded as no answer.
    await dispatch(
      { ...deps, allowLoopback: false, resolve: async () => [{ address: '127.0.0.1', family: 4 }] },
      busEvent('change-2'),
    );
    expect(received).toHaveLength(1);
    expect(queued).toHaveLength(1);
    const { deliveries } = await getWebhookDeliveries(
      { deliveries: log() },
      { organizationId: org, endpointId: endpoint.id },
    );
    expect(deliveries[0]).toMatchObject({ eventId: 'change-2', statusCode: null });
  });

  test('a wait longer than SQS allows goes back on the queue in hops of at most 900 s', async () => {
    const endpoint = await addEndpoint();
    answer = () => ({ status: 500 });
    await dispatch({ ...deps, schedule: [7200] }, busEvent('change-1'));
    expect(queued.map(({ delaySeconds }) => delaySeconds)).toEqual([900]);
    const first = queued.shift() as { message: RetryMessage };
    expect(first.message.webhook).toMatchObject({
      endpointId: endpoint.id,
      attempt: 2,
      dueAt: clock.getTime() + 7_200_000,
    });
    clock = new Date(clock.getTime() + 900_000);
    await dispatch(deps, first.message);
    expect(received).toHaveLength(1);
    expect(queued.map(({ delaySeconds }) => delaySeconds)).toEqual([900]);
    clock = new Date(clock.getTime() + 6_300_000);
    answer = () => ({ status: 200 });
    await dispatch(deps, (queued.shift() as { message: RetryMessage }).message);
    expect(received).toHaveLength(2);
  });

  test('a secret sealed under a link key since replaced is sealed again under the current one: retiring the old key loses nothing', async () => {
    const endpoint = await addEndpoint();
    const k2 = { current: 'k2', keys: { ...firstKeys.keys, k2: newKeyMaterial() }, retireAfter: {} };
    await dispatch({ ...deps, keys: staticKeyring(k2) }, busEvent('change-1'));
    expect(verify(endpoint.secret, received[0] as Received)).toMatchObject({ data: { id: 'change-1' } });
    const [stored] = (await store().get(org)).endpoints;
    expect(stored?.secret.startsWith('k2.')).toBe(true);
    // k1 retired: the secret still opens.
    const retired = { current: 'k2', keys: { k2: k2.keys.k2 }, retireAfter: {} };
    await dispatch({ ...deps, keys: staticKeyring(retired) }, busEvent('change-2'));
    expect(verify(endpoint.secret, received[1] as Received)).toMatchObject({ data: { id: 'change-2' } });
  });
});
