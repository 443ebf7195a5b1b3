import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { type Fault, type FaultProxy, startFaultProxy } from './fault-proxy.js';
import { gatedConsumer, PATHS, waitForMigration } from './support.js';

// The local server with the SQS twin and the real consumer, its DynamoDB behind the fault
// proxy: poison messages, a migration that can never succeed, and a migration under random
// transient faults. Each ends in the contract's state: nothing lost, nothing duplicated,
// counts exact, nothing pending forever.
const MAX_RECEIVE = 6;
let service: LocalService;
let proxy: FaultProxy;
const gate = gatedConsumer();

beforeAll(async () => {
  proxy = await startFaultProxy(() => service.dynamoEndpoint);
  service = await startLocalService({
    consumer: gate.consumer,
    queue: { maxReceiveCount: MAX_RECEIVE, retryDelayMs: 30 },
    env: { AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint },
  });
});
afterAll(async () => {
  await service?.close();
  await proxy?.close();
});
beforeEach(() => proxy.reset());

/** mulberry32: a small seeded generator, uniform on [0, 1), so that a failing run can be replayed. */
const seededRandom = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const users = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);

const documentConfigs = async (documentId: string, userIds: string[]) => {
  const result: Record<string, unknown> = {};
  for (const userId of userIds) {
    const response = await service.call(PATHS.get, { organizationId: 'org-q', userId, documentIds: [documentId] });
    const [item] = response.body.result!.data as { config: Record<string, string> }[];
    if (item && Object.keys(item.config).length > 0) result[userId] = item.config;
  }
  return result;
};

/** Starts a migration, retrying 503s as the contract allows (faults may hit the route too). */
const startMigration = async (documentId: string, newDocumentId: string) => {
  for (let attempt = 1; ; attempt++) {
    const response = await service.call(PATHS.migrate, { organizationId: 'org-q', documentId, newDocumentId });
    if (response.status === 200) return (response.body.result!.data as { migrationId: string }).migrationId;
    if (response.status !== 503 || attempt === 5) throw new Error(`migrate: ${response.status} ${response.text}`);
  }
};

describe('poison messages', () => {
  test('malformed bodies and unknown migrations are consumed once and dropped: no retry, nothing dead-lettered', async () => {
    const before = gate.deliveries;
    const bodies = [
      'not json',
      '{}',
      '{"migrationId":""}',
      '{"migrationId":42}',
      '{"migrationId":"x","more":1}',
      '{"migrationId":"01UNKNOWNMIGRATION"}',
      '[]',
      'null',
    ];
    for (const body of bodies) service.queue.send({ body });
    await service.queue.whenIdle();
    expect(gate.deliveries - before).toBe(bodies.length);
    expect(service.deadLetterQueue.list()).toEqual([]);
  });

  test('a migration whose every attempt fails: dead-lettered after the last attempt, marked failed with a reason, documents free, no entry lost', async () => {
    const ids = users('poison', 5);
    await service.call(PATHS.set, {
      organizationId: 'org-q',
      userIds: ids,
      documentIds: ['p-src'],
      config: { inbox: 'MINE' },
    });
    // Listing the source document always fails.
    proxy.policy = ({ operation }) => (operation === 'Query' ? 'internal' : undefined);
    const before = gate.deliveries;
    const migrationId = await startMigration('p-src', 'p-dst');
    const status = await waitForMigration(service, undefined, 'org-q', migrationId);
    await service.queue.whenIdle();
    expect(status).toMatchObject({ status: 'failed', error: expect.stringMatching(/attempts/) });
    expect(gate.deliveries - before).toBe(MAX_RECEIVE);
    expect(service.deadLetterQueue.list().map((m) => JSON.parse(m.body))).toContainEqual({ migrationId });

    // Nothing was lost, and once the fault is gone the same documents migrate again.
    proxy.reset();
    expect(Object.keys(await documentConfigs('p-src', ids))).toEqual(ids);
    const again = await startMigration('p-src', 'p-dst');
    expect(await waitForMigration(service, undefined, 'org-q', again)).toMatchObject({
      status: 'completed',
      moved: 5,
      skipped: 0,
    });
    expect(await documentConfigs('p-dst', ids)).toEqual(Object.fromEntries(ids.map((id) => [id, { inbox: 'MINE' }])));
  });
});

test('a 250-entry migration under random transient faults on every DynamoDB call completes with exact state and counts', async () => {
  const sources = users('rf', 250);
  const newer = sources.filter((_, i) => i % 25 === 0); // 10 users with a newer entry at the target
  await service.call(PATHS.set, {
    organizationId: 'org-q',
    userIds: sources,
    documentIds: ['rf-src'],
    config: { inbox: 'ALL', slack: 'MINE' },
  });
  await service.call(PATHS.set, {
    organizationId: 'org-q',
    userIds: newer,
    documentIds: ['rf-dst'],
    config: { email: 'NONE' },
  });

  // A seeded random fault on about 8% of calls, of every kind (BatchGetItem may also come back half read).
  const random = seededRandom(42);
  const kinds: Fault[] = ['throttle', 'internal', 'unavailable', 'reset'];
  proxy.policy = ({ operation }) => {
    const r = random();
    if (operation === 'BatchGetItem' && r > 0.7) return 'unprocessed';
    return r < 0.08 ? kinds[Math.floor(r * 50) % kinds.length] : undefined;
  };
  const migrationId = await startMigration('rf-src', 'rf-dst');
  const status = await waitForMigration(service, undefined, 'org-q', migrationId, 90_000);
  await service.queue.whenIdle();
  const injected = [...proxy.injected.values()].reduce((a, b) => a + b, 0);
  proxy.reset();

  expect(status).toMatchObject({ status: 'completed', moved: 240, skipped: 10 });
  expect(injected).toBeGreaterThan(20);
  const target = await documentConfigs('rf-dst', sources);
  expect(Object.keys(target)).toHaveLength(250);
  for (const user of sources) {
    expect({ user, config: target[user] }).toEqual({
      user,
      config: newer.includes(user) ? { email: 'NONE' } : { inbox: 'ALL', slack: 'MINE' },
    });
  }
  expect(await documentConfigs('rf-src', sources)).toEqual({});
  expect(service.deadLetterQueue.list().filter((m) => m.body.includes(migrationId))).toEqual([]);
  // Bounds for a busy machine: the retries' backoff is real time, and the assertions are on counts.
}, 120_000);
