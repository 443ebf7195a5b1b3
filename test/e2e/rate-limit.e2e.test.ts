import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { hashToken } from '#shared/auth/credential.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// A caller over its rate gets 429 RESOURCE_EXHAUSTED with when to come back, in the envelope and
// in Retry-After, while every other credential goes on as before (contract section 2). The twin
// limits nothing unless told to: here the deployment's default is set as the stack sets it.

let service: LocalService;
const other = { apiKey: 'ak_other_tenant', token: 'st_other-tenant-token' };

beforeAll(async () => {
  service = await startLocalService({ env: { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '3' } });
  await service.doc.send(
    new PutCommand({
      TableName: service.tables.credentials,
      Item: {
        apiKey: other.apiKey,
        tokenHash: hashToken(other.token),
        organizationIds: '*',
        createdAt: new Date().toISOString(),
      },
    }),
  );
});
afterAll(async () => {
  await service?.close();
});

const get = (headers?: Record<string, string>) =>
  service.call('/v2/notifications/config/get', { organizationId: 'acme', userId: 'alice' }, headers ? { headers } : {});

test('over its rate a credential gets 429 with Retry-After; another credential is not slowed', async () => {
  const answers = [];
  for (let i = 0; i < 8; i++) answers.push(await get());
  const statuses = answers.map((answer) => answer.status);
  // The burst first (the clock moves a little between calls: one more may have refilled).
  expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
  expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(4);
  const refused = answers.find((answer) => answer.status === 429);
  const seconds = Number(refused?.headers.get('retry-after'));
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(refused?.body).toEqual({
    error: {
      status: 'RESOURCE_EXHAUSTED',
      message: `The credential's request rate is exceeded; retry after ${seconds} s.`,
      details: { retryAfterSeconds: seconds },
    },
  });
  // The other tenant, at the same moment: its own bucket, full.
  const others = [];
  for (let i = 0; i < 3; i++) others.push((await get(service.authHeaders(other.apiKey, other.token))).status);
  expect(others).toEqual([200, 200, 200]);
});

test('after the time Retry-After says, the credential is served again', async () => {
  let answer = await get();
  if (answer.status === 429) {
    await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after')) * 1000));
    answer = await get();
  }
  expect(answer.status).toBe(200);
});
