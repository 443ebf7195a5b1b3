import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type LocalService, startLocalService } from '../support/local-service.js';

// The whole migration over HTTP: the local server's routes, its SQS twin delivering real
// SQSEvent records to functions/migration-consumer.ts, and the in-memory DynamoDB.
const SET = '/v2/notifications/config/set';
const GET = '/v2/notifications/config/get';
const MIGRATE = '/v2/organizations/documents/migrate';
const STATUS = '/v2/organizations/documents/migrate/status';
const ORG = 'org e2e/1';

let service: LocalService;

beforeAll(async () => {
  service = await startLocalService();
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
  return response.body.result?.data;
};

const waitForEnd = async (migrationId: string, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = (await ok(STATUS, { organizationId: ORG, migrationId })) as { status: string };
    if (view.status === 'completed' || view.status === 'failed' || Date.now() > deadline) return view;
    await sleep(100);
  }
};

describe('document migration end to end', () => {
  test('set configs, migrate, poll until completed, read them back under the new id', async () => {
    const users = Array.from({ length: 40 }, (_, i) => `user ${i}`);
    await ok(SET, { organizationId: ORG, userIds: users, documentIds: ['doc#old'], config: { inbox: 'NONE' } });
    await ok(SET, {
      organizationId: ORG,
      userIds: users.slice(0, 10),
      documentIds: ['doc#old'],
      config: { email: 'ALL' },
    });
    await ok(SET, { organizationId: ORG, userIds: ['user 0'], config: { slack: 'MINE' } }); // organization level
    // Written to the new document after the old one: newer, so it wins over the migrated entry.
    await ok(SET, { organizationId: ORG, userIds: ['user 39'], documentIds: ['doc-new'], config: { slack: 'ALL' } });

    const { migrationId } = (await ok(MIGRATE, {
      organizationId: ORG,
      documentId: 'doc#old',
      newDocumentId: 'doc-new',
    })) as { migrationId: string };
    expect(typeof migrationId).toBe('string');

    const view = await waitForEnd(migrationId);
    expect(view).toEqual({
      migrationId,
      organizationId: ORG,
      documentId: 'doc#old',
      newDocumentId: 'doc-new',
      status: 'completed',
      moved: 39,
      skipped: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      completedAt: expect.any(String),
    });

    for (const [index, userId] of users.entries()) {
      const [moved, old] = (await ok(GET, { organizationId: ORG, userId, documentIds: ['doc-new', 'doc#old'] })) as {
        config: Record<string, string>;
      }[];
      const expected =
        index === 39 ? { slack: 'ALL' } : index < 10 ? { inbox: 'NONE', email: 'ALL' } : { inbox: 'NONE' };
      expect({ userId, moved: moved?.config, old: old?.config }).toEqual({ userId, moved: expected, old: {} });
    }
    // The organization-level entry did not move.
    const [organization] = (await ok(GET, { organizationId: ORG, userId: 'user 0' })) as {
      config: Record<string, string>;
    }[];
    expect(organization?.config).toEqual({ slack: 'MINE' });

    // Both documents are free again: migrating back starts a new migration.
    const back = (await ok(MIGRATE, { organizationId: ORG, documentId: 'doc-new', newDocumentId: 'doc#old' })) as {
      migrationId: string;
    };
    expect(back.migrationId).not.toBe(migrationId);
    expect(back.migrationId > migrationId).toBe(true);
    expect(await waitForEnd(back.migrationId)).toMatchObject({ status: 'completed', moved: 40, skipped: 0 });
  }, 60_000);

  test('status of an unknown migration is 404 NOT_FOUND', async () => {
    const response = await service.call(STATUS, { organizationId: ORG, migrationId: '01JNOSUCHMIGRATION0000000' });
    expect(response.status).toBe(404);
    expect(response.body.error?.status).toBe('NOT_FOUND');
  });

  test('documentId equal to newDocumentId is 400 INVALID_ARGUMENT naming newDocumentId', async () => {
    const response = await service.call(MIGRATE, { organizationId: ORG, documentId: 'd', newDocumentId: 'd' });
    expect(response.status).toBe(400);
    expect(response.body.error?.status).toBe('INVALID_ARGUMENT');
    expect(response.body.error?.message).toContain('newDocumentId');
  });
});
