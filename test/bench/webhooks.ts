import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startLocalRuntime } from '#local/runtime.js';
import { memoryOf, WEBHOOK_DISPATCHER_FUNCTION } from '#service/functions.js';
import { newKeyringDocument, staticKeyring } from '#shared/links/keyring.js';
import { type DispatcherMessage, dispatch, dispatcherMessage, type RetryMessage } from '#shared/webhooks/dispatcher.js';
import type { DeliveryAttempt, DisabledReason, StoredEndpoint } from '#shared/webhooks/model.js';
import { newEndpointId } from '#shared/webhooks/schema.js';
import { newSecret, sealSecret } from '#shared/webhooks/secrets.js';
import { sendTo } from '#shared/webhooks/send.js';
import type { DeliveryLog, WebhookStore } from '#shared/webhooks/store.js';
import { cpuSecondsSince, projectedSeconds } from './lambda-cpu.js';
import { goal, type Section, section } from './report.js';
import { fmtMs, fmtNum, percentile } from './stats.js';

/** Contract 17: the first attempt leaves within 2 s of the change, at p95, on the twin. */
const FIRST_ATTEMPT_P95_MS = 2_000;

export interface WebhooksBenchOptions {
  /** Config sets on the twin whose first delivery is timed. */
  changes: number;
  /** Events dispatched in process, each to every endpoint. */
  events: number;
  endpoints: number;
  /** Share of answers the receivers fail. */
  failureRate: number;
}

/** First attempt on the twin: from a config set's answer to its delivery at a loopback receiver. */
const firstAttempt = async (changes: number): Promise<number[]> => {
  const arrived = new Map<string, number>();
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { data } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { userId: string } };
      if (!arrived.has(data.userId)) arrived.set(data.userId, performance.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const runtime = await startLocalRuntime({ inMemory: true, port: 0 });
  const call = (path: string, data: unknown) =>
    fetch(`${runtime.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-api-key': runtime.apiKey,
        'x-service-auth-token': runtime.token,
      },
      body: JSON.stringify({ data }),
    });
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    await call('/v2/organizations/webhooks/set', { organizationId: 'bench', endpoints: [{ url }] });
    const answered = new Map<string, number>();
    for (let i = 0; i < changes; i++) {
      const userId = `u${i}`;
      await call('/v2/notifications/config/set', {
        organizationId: 'bench',
        userIds: [userId],
        config: { email: 'NONE' },
      });
      answered.set(userId, performance.now());
      // Changes a little apart, as a client sends them, not one burst.
      await sleep(20);
    }
    const deadline = Date.now() + 60_000;
    while (arrived.size < changes && Date.now() < deadline) await sleep(50);
    return [...answered].map(([userId, at]) => (arrived.get(userId) ?? Number.POSITIVE_INFINITY) - at);
  } finally {
    await runtime.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
};

/** A receiver in a child process (its CPU is not the dispatcher's): fails `failureRate` of answers, reports what it got. */
const RECEIVER = `
import { createServer } from 'node:http';
const failureRate = Number(process.argv[1]);
const got = new Set();
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    if (Math.random() < failureRate) return response.writeHead(503).end();
    got.add(request.url + ' ' + request.headers['webhook-id']);
    response.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', () => process.send({ got: got.size }));
`;

/** In memory: the stores' part is DynamoDB's, measured elsewhere; here, the dispatcher's own work. */
const memoryStores = (endpoints: StoredEndpoint[]) => {
  const store: Pick<WebhookStore, 'get' | 'markFailing' | 'clearFailing' | 'disable' | 'reseal'> = {
    get: async () => ({ endpoints, version: 1 }),
    markFailing: async () => {},
    clearFailing: async () => {},
    disable: async (_org: string, _id: string, _reason: DisabledReason) => {},
    reseal: async () => {},
  };
  let recorded = 0;
  const outcomes = new Map<string, (number | null)[]>();
  const log: Pick<DeliveryLog, 'record'> = {
    record: async (_org: string, id: string, attempt: DeliveryAttempt) => {
      recorded += 1;
      const key = `${id} ${attempt.eventId}`;
      outcomes.set(key, [...(outcomes.get(key) ?? []), attempt.statusCode]);
    },
  };
  /** The deliveries no attempt of which was answered 2xx, with their attempts' statuses. */
  const undelivered = () =>
    [...outcomes].filter(([, statuses]) => !statuses.some((code) => code !== null && code >= 200 && code < 300));
  return { store, log, recorded: () => recorded, undelivered };
};

const fanOut = async ({ events, endpoints: count, failureRate }: WebhooksBenchOptions) => {
  const child = spawn(process.execPath, ['--input-type=module', '-e', RECEIVER, String(failureRate)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve) =>
    child.once('message', (m) => resolve((m as { port: number }).port)),
  );
  try {
    const document = newKeyringDocument();
    const keyring = staticKeyring(document);
    const ring = await keyring.keyring();
    const endpoints: StoredEndpoint[] = Array.from({ length: count }, (_, i) => {
      const id = newEndpointId();
      return {
        id,
        url: `http://127.0.0.1:${port}/e${i}`,
        eventTypes: ['preference.changed'],
        disabled: false,
        createdAt: new Date().toISOString(),
        secret: sealSecret(newSecret(), 'bench', id, ring),
      };
    });
    const { store, log, recorded, undelivered } = memoryStores(endpoints);
    const queue: RetryMessage[] = [];
    const deps = {
      endpoints: store,
      deliveries: log,
      retries: { send: async (message: RetryMessage) => void queue.push(message) },
      keys: keyring,
      send: sendTo,
      allowLoopback: true,
      // Compressed: every retry due at once.
      schedule: [0, 0, 0, 0, 0, 0, 0],
    };
    const cpu = process.cpuUsage();
    const started = performance.now();
    const messages: DispatcherMessage[] = Array.from({ length: events }, (_, i) =>
      dispatcherMessage.parse({
        'detail-type': 'Notification Config Changed',
        time: new Date().toISOString(),
        detail: { id: `change-${i}`, organizationId: 'bench', userId: `u${i}`, before: {}, after: { email: 'NONE' } },
      }),
    );
    // Ten messages at a time, as a batch of the event source.
    for (let i = 0; i < messages.length; i += 10)
      await Promise.all(messages.slice(i, i + 10).map((m) => dispatch(deps, m)));
    while (queue.length > 0) await Promise.all(queue.splice(0, 10).map((m) => dispatch(deps, m)));
    const seconds = (performance.now() - started) / 1000;
    const cpuSeconds = cpuSecondsSince(cpu);
    child.send('count');
    const got = await new Promise<number>((resolve) =>
      child.once('message', (m) => resolve((m as { got: number }).got)),
    );
    const missed = undelivered();
    // Said so, should it ever happen: which delivery, and what each attempt got.
    for (const [key, statuses] of missed.slice(0, 5))
      console.error(`[bench] undelivered ${key}: ${JSON.stringify(statuses)}`);
    return {
      attempts: recorded(),
      delivered: got,
      undelivered: missed.length,
      expected: events * count,
      seconds,
      cpuSeconds,
    };
  } finally {
    child.kill();
  }
};

export const webhooksBench = async (options: WebhooksBenchOptions): Promise<Section[]> => {
  const s = section('webhooks', 'Webhooks: first attempt on the twin, and a fan-out with failing receivers');
  const delays = await firstAttempt(options.changes);
  const p50 = percentile(delays, 50);
  const p95 = percentile(delays, 95);
  s.tables.push({
    title: `First attempt after a config set's answer, on the twin (${options.changes} changes)`,
    columns: ['p50', 'p95', 'max'],
    rows: [[fmtMs(p50), fmtMs(p95), fmtMs(Math.max(...delays))]],
  });
  s.goals.push(
    goal('first attempt, p95', fmtMs(p95), `<= ${fmtMs(FIRST_ATTEMPT_P95_MS)}`, p95 <= FIRST_ATTEMPT_P95_MS),
  );

  const run = await fanOut(options);
  const perDelivery = run.cpuSeconds / run.attempts;
  const projected = projectedSeconds(perDelivery, memoryOf(WEBHOOK_DISPATCHER_FUNCTION));
  s.tables.push({
    title: `${fmtNum(options.events)} events to ${options.endpoints} endpoints, ${options.failureRate * 100}% of answers failing (retries compressed)`,
    columns: [
      'delivered',
      'attempts',
      'wall time',
      'CPU per attempt here',
      `projected at ${memoryOf(WEBHOOK_DISPATCHER_FUNCTION)} MB`,
    ],
    rows: [
      [
        `${fmtNum(run.delivered)} of ${fmtNum(run.expected)}`,
        fmtNum(run.attempts),
        `${run.seconds.toFixed(1)} s`,
        fmtMs(perDelivery * 1000),
        fmtMs(projected * 1000),
      ],
    ],
  });
  s.goals.push(
    goal('none lost', `${fmtNum(run.delivered)} of ${fmtNum(run.expected)}`, 'all', run.delivered === run.expected),
  );
  s.notes.push(
    'The fan-out runs the dispatcher in this process with in-memory stores and its queue (the stores cost DynamoDB calls, measured in other sections) against a receiver in a child process; CPU time is this process’s, projected to the dispatcher’s memory (lambda-cpu.ts).',
  );
  s.data = {
    firstAttemptMs: { p50, p95 },
    fanOut: { ...run, cpuPerAttemptMs: perDelivery * 1000, projectedMs: projected * 1000 },
  };
  return [s];
};
