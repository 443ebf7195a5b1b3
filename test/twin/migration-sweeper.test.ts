import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { losingConsumer } from '../support/losing-consumer.js';

// The local twin runs the sweeper of stuck migrations on a timer, with the limits shortened
// through the environment: a migration whose message is lost is resumed and completes.
const SET = '/v2/notifications/config/set';
const MIGRATE = '/v2/organizations/documents/migrate';
const STATUS = '/v2/organizations/documents/migrate/status';
const ORG = 'org sweep/1';

let service: LocalService;
/** Migration ids whose first message the consumer lost. */
const lost = new Set<string>();

beforeAll(async () => {
  service = await startLocalService({
    consumer: losingConsumer(lost),
    env: { MIGRATION_STALL_LIMIT_SECONDS: '2', LOCAL_SWEEP_INTERVAL_SECONDS: '1' },
  });
});
afterAll(async () => {
  await service?.close();
});

const ok = async (path: string, data: unknown) => {
  const response = await service.call(path, data);
  expect({ path, status: response.status, error: response.body?.error }).toEqual({
    path,
    status: 200,
    error: undefined,
  });
  return response.body.result?.data as Record<string, unknown>;
};

test('a migration whose message was lost is re-queued by the sweeper and completes', async () => {
  const users = Array.from({ length: 30 }, (_, i) => `user ${i}`);
  await ok(SET, { organizationId: ORG, userIds: users, documentIds: ['doc#old'], config: { inbox: 'NONE' } });
  const { migrationId } = await ok(MIGRATE, { organizationId: ORG, documentId: 'doc#old', newDocumentId: 'doc#new' });

  // Without the sweeper it would stay pending for ever; with it, within a few sweeps.
  const deadline = Date.now() + 60_000;
  let view: Record<string, unknown>;
  do {
    await sleep(200);
    view = await ok(STATUS, { organizationId: ORG, migrationId });
  } while (view.status !== 'completed' && view.status !== 'failed' && Date.now() < deadline);
  expect(lost.has(migrationId as string)).toBe(true);
  expect(view).toMatchObject({ status: 'completed', moved: 30, skipped: 0 });
});
