import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from '@jest/globals';
import { type LocalService, startLocalService } from '../support/local-service.js';

// `npm start -- --in-memory`: the functions reach DynamoDB Local at the banner's endpoint. A
// persistent twin cannot follow it in the same process: the functions' clients keep the
// endpoint and credential they first read, the in-memory store's.
let service: LocalService | undefined;
const dirs: string[] = [];
afterAll(async () => {
  await service?.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

test("in memory, the functions reach DynamoDB Local at the banner's endpoint, and work", async () => {
  service = await startLocalService();
  expect(process.env.AWS_ENDPOINT_URL_DYNAMODB).toBe(service.dynamoEndpoint);
  const set = await service.call('/v2/notifications/config/set', {
    organizationId: 'acme',
    userIds: ['alice'],
    documentIds: ['doc-1'],
    config: { email: 'NONE' },
  });
  expect(set.status).toBe(200);
  const got = await service.call('/v2/notifications/config/get', {
    organizationId: 'acme',
    userId: 'alice',
    documentIds: ['doc-1'],
  });
  expect(got.body).toMatchObject({
    result: { data: [{ documentId: 'doc-1', config: { email: 'NONE' } }] },
  });
});

test('a persistent runtime after an in-memory one in the same process is refused, not run on the wrong store', async () => {
  await service?.close();
  service = undefined;
  const dataDir = await mkdtemp(join(tmpdir(), 'in-memory-then-disk-'));
  dirs.push(dataDir);
  await expect(startLocalService({ inMemory: false, dataDir })).rejects.toThrow(
    'A persistent local runtime cannot follow an in-memory one in the same process.',
  );
});
