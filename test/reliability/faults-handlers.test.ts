import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { hashToken } from '#shared/auth/credential.js';
import type { HttpHandler } from '#shared/edge/http-route.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { startJob } from '#shared/jobs/start.js';
import { jobView } from '#shared/jobs/view.js';
import { abandonedReason } from '#shared/jobs/wording.js';
import { migrationJob } from '#shared/migration/kind.js';
import { ENV } from '#shared/platform/environment.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import { apiEvent, lambdaContext, parseResponse } from '../support/api-events.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';
import { setDynamoTestEnv } from '../support/test-env.js';
import { type FaultProxy, failFirst, startFaultProxy } from './fault-proxy.js';
import { PATHS } from './support.js';

// The real handlers with their real SDK clients, talking to DynamoDB Local through a proxy that
// injects DynamoDB faults (throttling, 5xx, cut connections, unprocessed keys); SQS is mocked.
// Each case ends in the contract's answer and a consistent store.
let dynamo: TestDynamo;
let proxy: FaultProxy;
const apiKey = 'ak_faults';
const token = 'st_faults-token';
const handlers: Record<keyof typeof PATHS, HttpHandler> = {} as never;
const sqs = mockClient(SQSClient);

beforeAll(async () => {
  dynamo = await startTestDynamo({ tables: 'own' });
  proxy = await startFaultProxy(() => dynamo.endpoint);
  setDynamoTestEnv(dynamo, proxy.endpoint);
  process.env[ENV.credentialCacheSeconds] = '0';
  await dynamo.doc.send(
    new PutCommand({
      TableName: dynamo.tables.credentials,
      Item: { apiKey, tokenHash: hashToken(token), organizationIds: ['org-1'], createdAt: new Date().toISOString() },
    }),
  );
  handlers.set = (await import('#functions/set-config.js')).handler;
  handlers.get = (await import('#functions/get-config.js')).handler;
  handlers.migrate = (await import('#functions/migrate-document.js')).handler;
  handlers.status = (await import('#functions/get-migration-status.js')).handler;
});
afterAll(async () => {
  sqs.restore();
  await proxy?.close();
  await dynamo?.close();
});
beforeEach(() => {
  proxy.reset();
  sqs.reset();
});

const call = async (route: keyof typeof PATHS, data: unknown) =>
  parseResponse(
    await handlers[route](
      apiEvent(PATHS[route], {
        headers: { 'x-service-api-key': apiKey, 'x-service-auth-token': token },
        body: { data },
      }),
      lambdaContext(),
    ),
  );

const stored = async (userId: string, documentId: string | null) =>
  (
    await dynamo.doc.send(
      new GetCommand({
        TableName: dynamo.tables.config,
        Key: entryTableKey({ organizationId: 'org-1', userId, documentId }),
      }),
    )
  ).Item;

const scan = async (table: string) => (await dynamo.doc.send(new ScanCommand({ TableName: table }))).Items ?? [];

describe('transient faults are retried and never reach the caller', () => {
  test('every call failing twice (throttled, 500, 503 or cut) first: all four routes answer 200 with the right data', async () => {
    proxy.policy = failFirst(['throttle', 'internal']);
    const users = ['t1', 't2', 't3'];
    const set = await call('set', {
      organizationId: 'org-1',
      userIds: users,
      documentIds: ['td1', 'td2'],
      config: { inbox: 'NONE' },
    });
    expect(set.statusCode).toBe(200);
    proxy.policy = failFirst(['unavailable', 'reset']);
    const get = await call('get', { organizationId: 'org-1', userId: 't2', documentIds: ['td1', 'td2'] });
    expect(get.statusCode).toBe(200);
    expect(get.body.result?.data).toMatchObject([{ config: { inbox: 'NONE' } }, { config: { inbox: 'NONE' } }]);
    proxy.policy = failFirst(['throttle', 'reset']);
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
    const migrate = await call('migrate', { organizationId: 'org-1', documentId: 'td1', newDocumentId: 'td9' });
    expect(migrate.statusCode).toBe(200);
    const { migrationId } = migrate.body.result!.data as { migrationId: string };
    const status = await call('status', { organizationId: 'org-1', migrationId });
    expect(status.statusCode).toBe(200);
    expect(status.body.result?.data).toMatchObject({ status: 'pending', moved: 0 });
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(1);
    for (const user of users) for (const doc of ['td1', 'td2']) expect((await stored(user, doc))?.inbox).toBe('NONE');
    // The faults did happen, on every kind of call the routes make.
    for (const operation of ['GetItem', 'UpdateItem', 'BatchGetItem', 'TransactWriteItems']) {
      const injected = [...proxy.injected].filter(([key]) => key.startsWith(`${operation}:`));
      expect({ operation, injected: injected.length > 0 }).toEqual({ operation, injected: true });
    }
  });

  test('BatchGetItem leaving half the keys unprocessed on every call: get still returns all 30 documents', async () => {
    const documentIds = Array.from({ length: 30 }, (_, i) => `ub-${i}`);
    expect(
      (await call('set', { organizationId: 'org-1', userIds: ['ub'], documentIds, config: { email: 'ALL' } }))
        .statusCode,
    ).toBe(200);
    proxy.policy = ({ operation }) => (operation === 'BatchGetItem' ? 'unprocessed' : undefined);
    const get = await call('get', { organizationId: 'org-1', userId: 'ub', documentIds });
    expect(get.statusCode).toBe(200);
    const items = get.body.result!.data as { documentId: string; config: unknown }[];
    expect(items.map((i) => i.documentId)).toEqual(documentIds);
    for (const item of items) expect(item.config).toEqual({ email: 'ALL' });
    expect(proxy.calls.get('BatchGetItem')).toBeGreaterThan(2);
  });
});

describe('a write that took effect but was answered after the client gave up (the SDK retries it)', () => {
  test('migrate: every write answered late once: 200, one pending migration holding both locks, one message', async () => {
    proxy.policy = failFirst(['late'], ['TransactWriteItems', 'PutItem', 'UpdateItem']);
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-late' });
    const response = await call('migrate', {
      organizationId: 'org-1',
      documentId: 'late-src',
      newDocumentId: 'late-dst',
    });
    expect(response.body.error).toBeUndefined();
    expect(response.statusCode).toBe(200);
    const { migrationId } = response.body.result!.data as { migrationId: string };
    expect(proxy.injected.get('TransactWriteItems:late')).toBe(1); // the record and both locks, in one transaction
    const records = (await scan(dynamo.tables.migrations)).filter((item) => item.documentId === 'late-src');
    expect(records.map((item) => item.pk)).toContain(`MIGRATION#${migrationId}`);
    const status = await call('status', { organizationId: 'org-1', migrationId });
    expect(status.body.result?.data).toMatchObject({ status: 'pending' });
    const locks = (await scan(dynamo.tables.migrations)).filter((item) => String(item.pk).startsWith('LOCK#'));
    expect(locks.filter((lock) => String(lock.documentId).startsWith('late-')).map((lock) => lock.migrationId)).toEqual(
      [migrationId, migrationId],
    );
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(1);
  }, 20_000);
});

describe('faults that outlast the retries: 503 UNAVAILABLE and a consistent store', () => {
  // 503s rather than throttling: the SDK backs off from throttling for up to ~15 s in all.
  test("one user's writes keep failing with 503: the answer is 503 naming that user, the others are stored, the retry completes", async () => {
    // Every write that touches p2's entry.
    const touchesP2 = (key: unknown) => (key as { sk?: { S?: string } } | undefined)?.sk?.S === 'p2';
    proxy.policy = ({ operation, body }) =>
      operation === 'UpdateItem' && touchesP2(body.Key) ? 'unavailable' : undefined;
    const data = {
      organizationId: 'org-1',
      userIds: ['p1', 'p2', 'p3'],
      documentIds: ['pd'],
      config: { slack: 'ALL' },
    };
    const failed = await call('set', data);
    expect(failed.statusCode).toBe(503);
    expect(failed.body.error?.status).toBe('UNAVAILABLE');
    expect(failed.body.error?.details).toMatchObject({
      p1: { success: true },
      p2: { success: false },
      p3: { success: true },
    });
    expect((await stored('p1', 'pd'))?.slack).toBe('ALL');
    expect(await stored('p2', 'pd')).toBeUndefined();

    proxy.reset();
    const retried = await call('set', data);
    expect(retried.statusCode).toBe(200);
    for (const user of ['p1', 'p2', 'p3']) expect((await stored(user, 'pd'))?.slack).toBe('ALL');
  });

  test('the credential lookup keeps failing with 500: 503 with a request id and nothing written', async () => {
    const before = await scan(dynamo.tables.config);
    proxy.policy = ({ operation }) => (operation === 'GetItem' ? 'internal' : undefined);
    const response = await call('set', { organizationId: 'org-1', userIds: ['c1'], config: { inbox: 'ALL' } });
    expect(response.statusCode).toBe(503);
    expect(response.body.error).toMatchObject({ status: 'UNAVAILABLE', details: { requestId: expect.any(String) } });
    expect(JSON.stringify(response.body)).not.toMatch(/injected|InternalServerError|dynamodb/i);
    expect(await scan(dynamo.tables.config)).toEqual(before);
  });

  test('BatchGetItem reading nothing until the retries run out: 503, not 500 and not a partial answer', async () => {
    proxy.policy = ({ operation }) => (operation === 'BatchGetItem' ? 'unprocessed-all' : undefined);
    const response = await call('get', { organizationId: 'org-1', userId: 'ub', documentIds: ['ub-1'] });
    expect(response.statusCode).toBe(503);
    expect(response.body.error?.status).toBe('UNAVAILABLE');
  });
});

describe('the queue cannot take the migration message', () => {
  const sqsDown = () =>
    sqs
      .on(SendMessageCommand)
      .rejects(
        Object.assign(new Error('injected'), { name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } }),
      );
  const locks = async () =>
    (await scan(dynamo.tables.migrations)).filter((item) => String(item.pk).startsWith('LOCK#'));

  test('503 UNAVAILABLE; the migration is failed, not pending; its documents are free for the retry', async () => {
    sqsDown();
    const data = { organizationId: 'org-1', documentId: 'q-src', newDocumentId: 'q-dst' };
    const response = await call('migrate', data);
    expect(response.statusCode).toBe(503);
    expect(response.body.error?.status).toBe('UNAVAILABLE');
    const { migrationId } = response.body.error!.details as { migrationId: string };
    const status = await call('status', { organizationId: 'org-1', migrationId });
    expect(status.body.result?.data).toMatchObject({ status: 'failed', error: expect.any(String) });
    expect((await locks()).filter((lock) => lock.migrationId === migrationId)).toEqual([]);

    sqs.reset();
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-2' });
    const retried = await call('migrate', data);
    expect(retried.statusCode).toBe(200);
    expect((retried.body.result!.data as { migrationId: string }).migrationId).not.toBe(migrationId);
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(1);
  });

  test('SQS down and DynamoDB failing the failure mark too: 503 now, and the record is reported failed and frees its documents once abandoned', async () => {
    sqsDown();
    // Every UpdateItem on the migrations table fails: the record cannot be marked failed.
    proxy.policy = ({ operation, body }) =>
      operation === 'UpdateItem' && body.TableName === dynamo.tables.migrations ? 'internal' : undefined;
    const data = { organizationId: 'org-1', documentId: 'ab-src', newDocumentId: 'ab-dst' };
    const response = await call('migrate', data);
    expect(response.statusCode).toBe(503);
    const { migrationId } = response.body.error!.details as { migrationId: string };

    // Three minutes later (past the abandonment window) the record reads as failed, and a new
    // migration of the same documents takes the locks over.
    proxy.reset();
    const repository = new DynamoJobRepository(migrationJob, dynamo.doc, dynamo.tables.migrations);
    const later = new Date(Date.now() + 3 * 60_000);
    const record = await repository.get(migrationId);
    expect(record && jobView(migrationJob, record, later)).toMatchObject({
      status: 'failed',
      error: abandonedReason(migrationJob),
    });
    const sent: string[] = [];
    const next = await startJob(
      migrationJob,
      { repository, queue: { send: async (id) => void sent.push(id) }, now: () => later },
      data,
      'ak_test',
    );
    expect(next.migrationId).not.toBe(migrationId);
    expect(sent).toEqual([next.migrationId]);
    const held = (await locks()).filter((lock) => String(lock.documentId).startsWith('ab-'));
    expect(held.map((lock) => lock.migrationId)).toEqual([next.migrationId, next.migrationId]);
  });
});
