import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { CallResult, LocalService } from '../support/local-service.js';
import { startLocalService } from '../support/local-service.js';
import { type FaultProxy, startFaultProxy } from './fault-proxy.js';
import { PATHS, waitForMigration } from './support.js';

// A slow laptop: DynamoDB Local answering every call of the functions 1.5 s after it took
// effect, longer than the deployed clients' 1 s socket timeout. Through the local twin the
// requests must still answer 200 (with the deployed timeout each attempt was abandoned and
// retried until the request ended in 503), and a migration must complete.
const ORG = 'org-slow';
let service: LocalService;
let proxy: FaultProxy;

beforeAll(async () => {
  proxy = await startFaultProxy(() => service.dynamoEndpoint);
  service = await startLocalService({
    // A cached credential: the slow calls measured are the routes' own.
    env: { AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint, CREDENTIAL_CACHE_TTL_SECONDS: '300' },
  });
  // Each route authenticates once (before its body is checked: 400), filling its cache.
  for (const path of Object.values(PATHS)) expect((await service.call(path, {})).status).toBe(400);
});
afterAll(async () => {
  // The stream twin first publishes the history of the entries written.
  await service?.close();
  await proxy?.close();
}, 120_000);

const answer = (response: CallResult) => ({ status: response.status, body: response.body });

test('every DynamoDB call answered 1.5 s late: set, get, migrate and status answer 200 and the migration completes', async () => {
  proxy.lateMs = 1_500;
  proxy.policy = () => 'late';
  const users = ['slow-1', 'slow-2'];
  const set = await service.call(PATHS.set, {
    organizationId: ORG,
    userIds: users,
    documentIds: ['slow-doc'],
    config: { inbox: 'NONE' },
  });
  expect(answer(set)).toMatchObject({ status: 200 });

  const get = await service.call(PATHS.get, { organizationId: ORG, userId: 'slow-1', documentIds: ['slow-doc'] });
  expect(answer(get)).toMatchObject({ status: 200, body: { result: { data: [{ config: { inbox: 'NONE' } }] } } });

  const migrate = await service.call(PATHS.migrate, {
    organizationId: ORG,
    documentId: 'slow-doc',
    newDocumentId: 'slow-new',
  });
  expect(answer(migrate)).toMatchObject({ status: 200 });
  const { migrationId } = migrate.body.result!.data as { migrationId: string };
  const finished = await waitForMigration(service, undefined, ORG, migrationId, 90_000);
  expect(finished).toMatchObject({ status: 'completed', moved: users.length, skipped: 0 });

  const moved = await service.call(PATHS.get, { organizationId: ORG, userId: 'slow-2', documentIds: ['slow-new'] });
  expect(answer(moved)).toMatchObject({ status: 200, body: { result: { data: [{ config: { inbox: 'NONE' } }] } } });
  // The store was slow on every kind of call the routes and the consumer make.
  for (const operation of ['GetItem', 'TransactWriteItems', 'UpdateItem', 'BatchGetItem', 'Query'])
    expect([operation, (proxy.injected.get(`${operation}:late`) ?? 0) > 0]).toEqual([operation, true]);
}, 150_000);

test('256 users (256 UpdateItems, 32 in flight), each answered 1.5 s late: 200, every entry stored', async () => {
  proxy.lateMs = 1_500;
  proxy.policy = () => 'late';
  const userIds = Array.from({ length: 256 }, (_, i) => `many-${i}`);
  const documentIds = ['many-a'];
  const before = proxy.injected.get('UpdateItem:late') ?? 0;
  const set = await service.call(PATHS.set, { organizationId: ORG, userIds, documentIds, config: { email: 'MINE' } });
  expect(answer(set)).toMatchObject({ status: 200 });
  expect((proxy.injected.get('UpdateItem:late') ?? 0) - before).toBeGreaterThanOrEqual(256);
  proxy.policy = () => undefined;
  for (const userId of ['many-0', 'many-128', 'many-255']) {
    const get = await service.call(PATHS.get, { organizationId: ORG, userId, documentIds });
    expect(answer(get)).toMatchObject({ status: 200 });
    const configs = (get.body.result!.data as { config: unknown }[]).map((item) => item.config);
    expect(configs).toEqual([{ email: 'MINE' }]);
  }
}, 60_000);
