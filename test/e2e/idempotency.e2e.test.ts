import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { type LocalService, startLocalService } from '../support/local-service.js';

// The Idempotency-Key of migrate and erase over HTTP against the twin (docs/api.md,
// Idempotency-Key): a lost answer retried with its key gets the first answer, whatever happened
// since; the same key with another request is refused and starts nothing.

let service: LocalService;

beforeAll(async () => {
  service = await startLocalService();
});
afterAll(async () => {
  await service?.close();
});

const MIGRATE = '/v2/organizations/documents/migrate';
const ERASE = '/v2/organizations/users/erase';

const withKey = (path: string, data: unknown, key: string) =>
  service.call(path, data, { headers: { 'Idempotency-Key': key } });

const finished = async (path: string, data: Record<string, string>) => {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { body } = await service.call(path, data);
    const status = (body.result?.data as { status?: string } | undefined)?.status;
    if (status === 'completed' || status === 'failed' || Date.now() > deadline) return status;
    await sleep(100);
  }
};

test.each([
  ['migrate', MIGRATE, { organizationId: 'acme', documentId: 'doc-1', newDocumentId: 'doc-2' }, 'migrationId'],
  ['erase', ERASE, { organizationId: 'acme', userId: 'mallory' }, 'erasureId'],
])(
  'a lost answer of %s retried with its key gets the same id, even after the job finished',
  async (_name, path, data, idField) => {
    const first = await withKey(path, data, `key-${idField}`);
    expect(first.status).toBe(200);
    const id = ((first.body.result?.data ?? {}) as Record<string, string>)[idField] as string;
    const statusPath = `${path}/status`;
    expect(await finished(statusPath, { organizationId: 'acme', [idField]: id })).toBe('completed');

    const retried = await withKey(path, data, `key-${idField}`);
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual(first.body);
    // Without the key, the same request after the job finished starts a new one.
    const fresh = await service.call(path, data);
    expect(((fresh.body.result?.data ?? {}) as Record<string, string>)[idField]).not.toBe(id);
  },
);

test('the same key with another request is refused, naming the header, and starts nothing', async () => {
  const data = { organizationId: 'acme', documentId: 'doc-7', newDocumentId: 'doc-8' };
  const first = await withKey(MIGRATE, data, 'key-reused');
  expect(first.status).toBe(200);
  const other = await withKey(MIGRATE, { ...data, newDocumentId: 'doc-9' }, 'key-reused');
  expect(other.status).toBe(400);
  expect(other.body.error?.status).toBe('INVALID_ARGUMENT');
  expect(other.body.error?.message).toMatch(/^Idempotency-Key /);
  // Nothing started: doc-9 is free for a migration of its own (a started one would hold it: 409).
  const free = await service.call(MIGRATE, { organizationId: 'acme', documentId: 'doc-9', newDocumentId: 'doc-10' });
  expect(free.status).toBe(200);
});

test.each([
  ['empty', ''],
  ['too long', 'k'.repeat(256)],
  ['not printable ASCII', 'clé'],
])('a key that is %s is refused, naming the header', async (_name, key) => {
  const answer = await withKey(ERASE, { organizationId: 'acme', userId: 'trent' }, key);
  expect(answer.status).toBe(400);
  expect(answer.body.error?.message).toBe('Idempotency-Key must be 1 to 255 printable ASCII characters.');
});
