import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { SQSEvent } from 'aws-lambda';
import type { AwsCredential } from '#local/aws-credential.js';
import { dataPaths, readRunningServer } from '#local/data-dir.js';
import { startEmbeddedDynamo } from '#local/dynamo.js';
import { memoryOf, timeoutSecondsOf } from '#service/functions.js';
import { functionSpecOf, ROUTES } from '#service/routes.js';
import { ENV } from '#shared/platform/environment.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// The runtime around the handlers: data that persists across restarts, the local credential,
// the queue wired to the functions' environment, and the guard against two servers on one
// data directory.
let dataDir: string;
let service: LocalService | undefined;
const consumed: SQSEvent[] = [];
const consumer = async (event: SQSEvent) => {
  consumed.push(event);
  return { batchItemFailures: [] };
};

const start = () => startLocalService({ inMemory: false, dataDir, consumer });
const get = (s: LocalService) =>
  s.call('/v2/notifications/config/get', { organizationId: 'acme', userId: 'alice', documentIds: ['doc-1'] });

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'local-runtime-'));
});
afterAll(async () => {
  await service?.close();
  await rm(dataDir, { recursive: true, force: true });
});

test('a persistent service keeps configs, the local credential and its key file across restarts', async () => {
  service = await start();
  expect(service.credential).toBe('created');
  const saved = JSON.parse(await readFile(dataPaths(dataDir).credential, 'utf8'));
  expect(saved).toEqual({ apiKey: service.apiKey, token: service.token });
  expect(await readRunningServer(dataDir)).toMatchObject({ pid: process.pid, apiUrl: service.baseUrl });
  const set = await service.call('/v2/notifications/config/set', {
    organizationId: 'acme',
    userIds: ['alice'],
    documentIds: ['doc-1'],
    config: { email: 'NONE' },
  });
  expect(set.status).toBe(200);
  const { apiKey, token } = service;
  await service.close();
  expect(await readRunningServer(dataDir, { checkAlive: false })).toBeUndefined();

  service = await start();
  expect({ apiKey: service.apiKey, token: service.token, credential: service.credential }).toEqual({
    apiKey,
    token,
    credential: 'kept',
  });
  const response = await get(service);
  const [item] = (response.body.result?.data ?? []) as { config: unknown }[];
  expect(item?.config).toEqual({ email: 'NONE' });
});

const revoke = (running: LocalService, apiKey: string, at: string) =>
  running.doc.send(
    new UpdateCommand({
      TableName: running.tables.credentials,
      Key: { apiKey },
      UpdateExpression: 'SET revokedAt = :at',
      ExpressionAttributeValues: { ':at': at },
    }),
  );

test('a revoked local credential stays revoked: the next start makes a new one and says why', async () => {
  const running = service as LocalService;
  const old = { apiKey: running.apiKey, token: running.token };
  const revokedAt = new Date().toISOString();
  await revoke(running, old.apiKey, revokedAt);
  expect((await get(running)).status).toBe(401);
  await running.close();

  service = await start();
  expect(service.credential).toBe('replaced');
  expect(service.replacedCredential).toEqual({ apiKey: old.apiKey, reason: `revoked at ${revokedAt}` });
  expect(service.apiKey).not.toBe(old.apiKey);
  expect(service.token).not.toBe(old.token);
  expect((await get(service)).status).toBe(200);
  // The revoked one is as the operator left it, and still refused.
  const { Item } = await service.doc.send(
    new GetCommand({ TableName: service.tables.credentials, Key: { apiKey: old.apiKey } }),
  );
  expect(Item?.revokedAt).toBe(revokedAt);
  const refused = await service.call(
    '/v2/notifications/config/get',
    { organizationId: 'acme', userId: 'alice', documentIds: ['doc-1'] },
    { headers: service.authHeaders(old.apiKey, old.token) },
  );
  expect(refused.status).toBe(401);
  // The new pair is the one kept for the next start.
  expect(JSON.parse(await readFile(dataPaths(dataDir).credential, 'utf8'))).toEqual({
    apiKey: service.apiKey,
    token: service.token,
  });
  const { apiKey } = service;
  await service.close();
  service = await start();
  expect({ credential: service.credential, apiKey: service.apiKey }).toEqual({ credential: 'kept', apiKey });
});

test('a fixed LOCAL_API_KEY that was revoked stops the start, naming why, and stays revoked', async () => {
  await service?.close();
  service = await startLocalService({ inMemory: false, dataDir, consumer, apiKey: 'ak_revoked', token: 'st_revoked' });
  const revokedAt = new Date().toISOString();
  await revoke(service, 'ak_revoked', revokedAt);
  await service.close();
  service = undefined;
  await expect(
    startLocalService({ inMemory: false, dataDir, consumer, apiKey: 'ak_revoked', token: 'st_revoked' }),
  ).rejects.toThrow(`LOCAL_API_KEY ak_revoked names a credential that was revoked at ${revokedAt}, and it stays so`);
});

test('LOCAL_API_KEY / LOCAL_AUTH_TOKEN fix the credential without being written to the key file', async () => {
  await service?.close();
  service = await startLocalService({ inMemory: false, dataDir, consumer, apiKey: 'ak_fixed', token: 'st_fixed' });
  expect([service.apiKey, service.token]).toEqual(['ak_fixed', 'st_fixed']);
  expect((await get(service)).status).toBe(200);
  expect(await readFile(dataPaths(dataDir).credential, 'utf8')).not.toContain('fixed');
});

test('the functions get the queue URL, and messages sent to it reach the consumer', async () => {
  const running = service as LocalService;
  expect(process.env[ENV.migrationQueueUrl]).toBe(running.queueUrl);
  expect(process.env[ENV.migrationMaxReceiveCount]).toBe('5');
  expect(process.env.AWS_ENDPOINT_URL_SQS).toBe(running.sqsEndpoint);
  // The same client set-up as the functions: endpoint from the environment.
  const client = new SQSClient({});
  try {
    await client.send(new SendMessageCommand({ QueueUrl: running.queueUrl, MessageBody: '{"hello":1}' }));
  } finally {
    client.destroy();
  }
  await running.queue.whenIdle();
  expect(consumed.map((event) => event.Records.map((r) => r.body))).toEqual([['{"hello":1}']]);
});

test('the change publisher is configured as deployed: its bus by name, EventBridge at the twin through the SDK variable', async () => {
  const running = service as LocalService;
  expect(process.env[ENV.eventBusName]).toBeTruthy();
  expect(process.env.AWS_ENDPOINT_URL_EVENTBRIDGE).toBe(running.eventsEndpoint);
  // The functions read no variable of the twin's own: production code has no local path.
  expect(Object.values(ENV).filter((name) => name.startsWith('LOCAL_'))).toEqual([]);
});

test('a restart in the same process waits for a port of the first start that another process holds for a while', async () => {
  const first = service as LocalService;
  await first.close();
  const holder = createServer().listen(Number(new URL(first.eventsEndpoint).port), '127.0.0.1');
  await once(holder, 'listening');
  setTimeout(() => holder.close(), 1_500);
  service = await start();
  expect(service.eventsEndpoint).toBe(first.eventsEndpoint);
  expect((await get(service)).status).toBe(200);
});

test("the functions reach DynamoDB Local at the banner's endpoint, signing with the data directory's AWS credential", async () => {
  const running = service as LocalService;
  expect(process.env.AWS_ENDPOINT_URL_DYNAMODB).toBe(running.dynamoEndpoint);
  const saved = JSON.parse(await readFile(dataPaths(dataDir).awsCredential, 'utf8')) as AwsCredential;
  const { accessKeyId, secretAccessKey } = running.awsCredential;
  expect(saved).toEqual({ accessKeyId, secretAccessKey });
  expect(process.env.AWS_ACCESS_KEY_ID).toBe(saved.accessKeyId);
  expect(process.env.AWS_SECRET_ACCESS_KEY).toBe(saved.secretAccessKey);
  expect((await stat(dataPaths(dataDir).awsCredential)).mode & 0o777).toBe(0o600);
});

test('a second server on a data directory another process serves is refused with a clear message', async () => {
  await service?.close();
  service = undefined;
  // Another live process (this test's parent) recorded as serving the directory, and its files held.
  const holder = await startEmbeddedDynamo({ path: dataPaths(dataDir).dynamo });
  await new Promise((resolve) => setTimeout(resolve, 100));
  const record = {
    pid: process.ppid,
    apiUrl: 'http://127.0.0.1:3000',
    dynamoEndpoint: holder.endpoint,
    sqsEndpoint: 'http://127.0.0.1:2',
    startedAt: new Date().toISOString(),
  };
  await writeFile(dataPaths(dataDir).endpoints, JSON.stringify(record));
  try {
    await expect(start()).rejects.toThrow(
      /already serves http:\/\/127\.0\.0\.1:3000 .*another DATA_DIR or --in-memory, and another --port \(or --port 0, any free one\)/,
    );
    await rm(dataPaths(dataDir).endpoints);
    await expect(start()).rejects.toThrow(/in use by another process/);
  } finally {
    await holder.close();
  }
});

test('an address left behind by a server that died is ignored', async () => {
  await writeFile(
    dataPaths(dataDir).endpoints,
    JSON.stringify({ pid: process.ppid, apiUrl: 'http://127.0.0.1:3000', dynamoEndpoint: 'http://127.0.0.1:1' }),
  );
  service = await start();
  expect((await get(service)).status).toBe(200);
  expect(await readRunningServer(dataDir)).toMatchObject({ pid: process.pid });
});

test('the API description is served: /openapi.json is the committed document, /docs renders it', async () => {
  await service?.close();
  service = await startLocalService({ inMemory: true, consumer });
  const document = await fetch(`${service.baseUrl}/openapi.json`);
  expect(document.status).toBe(200);
  expect(document.headers.get('content-type')).toBe('application/json');
  const committed = JSON.parse(await readFile(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
  expect(await document.json()).toEqual(committed);

  const page = await fetch(`${service.baseUrl}/docs`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await page.text();
  for (const path of Object.keys(committed.paths)) expect(html).toContain(path);

  // Only GET serves them: any other method is the API's own NOT_FOUND.
  const post = await fetch(`${service.baseUrl}/docs`, { method: 'POST' });
  expect(post.status).toBe(404);
});

test('each HTTP function runs with its deployed timeout and memory (config/set: 29 s, not a twin-wide 10 s)', async () => {
  service ??= await start();
  for (const operation of ROUTES) {
    const spec = functionSpecOf(operation);
    expect(service.functions.get(operation.path)).toEqual({
      name: expect.stringContaining(operation.operationId),
      timeoutMs: timeoutSecondsOf(spec) * 1000,
      memoryMb: memoryOf(spec),
    });
  }
  expect(service.functions.get('/v2/notifications/config/set')?.timeoutMs).toBe(29_000);
});
