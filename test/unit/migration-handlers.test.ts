import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import type { HttpHandler } from '#shared/edge/http-route.js';
import { lockKey, migrationKey } from '#shared/migration/keys.js';
import type { MigrationRecord } from '#shared/migration/model.js';
import { logger } from '#shared/platform/logger.js';
import { apiEvent, lambdaContext, parseResponse } from '../support/api-events.js';
import { authHeaders, credentialRecord } from '../support/credentials.js';
import { setUnitTestEnv } from '../support/test-env.js';

setUnitTestEnv();
logger.setLogLevel('SILENT');
const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
let migrate: HttpHandler;
let status: HttpHandler;
let apiKeyCounter = 0;
let apiKey: string;

beforeAll(async () => {
  ({ handler: migrate } = await import('#functions/migrate-document.js'));
  ({ handler: status } = await import('#functions/get-migration-status.js'));
});

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  // A fresh key per test: the authenticator caches credentials for the module's lifetime.
  apiKey = `ak_m${++apiKeyCounter}`;
  ddb.on(GetCommand).resolves({});
  ddb.on(GetCommand, { TableName: 'credentials-table', Key: { apiKey } }).resolves({
    Item: credentialRecord({ apiKey, organizationIds: ['org-1'] }),
  });
  ddb.on(PutCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
  ddb.on(DeleteCommand).resolves({});
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
});

const request = { organizationId: 'org-1', documentId: 'doc-a', newDocumentId: 'doc-b' };
const call = async (handler: HttpHandler, path: string, data: unknown) =>
  parseResponse(await handler(apiEvent(path, { headers: authHeaders(apiKey), body: { data } }), lambdaContext()));
const callMigrate = (data: unknown = request) => call(migrate, '/v2/organizations/documents/migrate', data);
const callStatus = (data: unknown) => call(status, '/v2/organizations/documents/migrate/status', data);

const record = (overrides: Partial<MigrationRecord> = {}): MigrationRecord => ({
  migrationId: '01JMIGRATIONEXISTING000000',
  organizationId: 'org-1',
  documentId: 'doc-a',
  newDocumentId: 'doc-b',
  status: 'in_progress',
  moved: 12,
  skipped: 3,
  createdAt: new Date(Date.now() - 60_000).toISOString(),
  updatedAt: new Date().toISOString(),
  queuedAt: new Date(Date.now() - 59_000).toISOString(),
  runs: {},
  skippedCheckpoint: [],
  ...overrides,
});

const conditionFailed = () =>
  Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });

/** DynamoDB's answer to a transaction with these reasons, item by item. */
const transactionCancelled = (...codes: string[]) =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

type Put = { Item: { pk: string }; ConditionExpression?: string };
/** The puts of the start's transaction. */
const transactionPuts = () =>
  ddb
    .commandCalls(TransactWriteCommand)
    .flatMap((c) => (c.args[0].input.TransactItems ?? []).map((t) => t.Put as unknown as Put));

/** The source document's lock is held by `holder`. */
const lockHeldBy = (holder: MigrationRecord, documentId = 'doc-a') => {
  ddb
    .on(GetCommand, { Key: lockKey('org-1', documentId) })
    .resolves({ Item: { ...lockKey('org-1', documentId), migrationId: holder.migrationId, role: 'source' } });
  ddb
    .on(GetCommand, { Key: migrationKey(holder.migrationId) })
    .resolves({ Item: { ...migrationKey(holder.migrationId), ...holder } });
  // Taking the free lock fails; taking it over from a stale holder (another condition) works.
  const { pk } = lockKey('org-1', documentId);
  const taken = (put: Put) => put.Item.pk === pk && put.ConditionExpression === 'attribute_not_exists(pk)';
  ddb.on(PutCommand).callsFake(async (input: Put) => {
    if (taken(input)) throw conditionFailed();
    return {};
  });
  ddb.on(TransactWriteCommand).callsFake(async (input: { TransactItems: { Put: Put }[] }) => {
    const codes = input.TransactItems.map(({ Put }) => (taken(Put) ? 'ConditionalCheckFailed' : 'None'));
    if (codes.includes('ConditionalCheckFailed')) throw transactionCancelled(...codes);
    return {};
  });
};

const failedUpdates = () =>
  ddb
    .commandCalls(UpdateCommand)
    .map((c) => c.args[0].input)
    .filter((input) => input.ExpressionAttributeValues?.[':failed'] === 'failed');

describe('POST /v2/organizations/documents/migrate', () => {
  test('records a pending migration, locks both documents, queues one message, answers its id', async () => {
    const response = await callMigrate();
    expect(response.statusCode).toBe(200);
    expect(response.body.result?.message).toBe('Document migration started successfully.');
    const { migrationId } = (response.body.result?.data ?? {}) as { migrationId: string };
    expect(migrationId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/); // a ULID: unique and time-sortable

    // The record and both locks in one transaction, each written only where nothing is.
    expect(ddb).toHaveReceivedCommandTimes(TransactWriteCommand, 1);
    expect(ddb).not.toHaveReceivedCommand(PutCommand);
    expect(transactionPuts()).toEqual([
      expect.objectContaining({
        TableName: 'migrations-table',
        Item: expect.objectContaining({ ...migrationKey(migrationId), status: 'pending', moved: 0, skipped: 0 }),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
      ...[
        ['doc-a', 'source'],
        ['doc-b', 'target'],
      ].map(([documentId, role]) =>
        expect.objectContaining({
          TableName: 'migrations-table',
          Item: expect.objectContaining({ ...lockKey('org-1', documentId as string), migrationId, role }),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    ]);
    expect(sqs).toHaveReceivedCommandTimes(SendMessageCommand, 1);
    expect(sqs).toHaveReceivedCommandWith(SendMessageCommand, {
      QueueUrl: process.env.MIGRATION_QUEUE_URL,
      MessageBody: JSON.stringify({ migrationId }),
    });
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      Key: migrationKey(migrationId),
      UpdateExpression: 'SET queuedAt = :at',
    });
  });

  test('a start transaction that applied but was answered as cancelled (a retry without its token): the migration is queued, nothing written again', async () => {
    // The transaction's items are stored, then the answer is a cancellation (each item exists).
    const stored = new Map<string, Record<string, unknown>>();
    ddb.on(TransactWriteCommand).callsFake(async (input: { TransactItems: { Put: Put }[] }) => {
      for (const { Put } of input.TransactItems) stored.set(Put.Item.pk, Put.Item);
      throw transactionCancelled(...input.TransactItems.map(() => 'ConditionalCheckFailed'));
    });
    ddb.on(GetCommand, { TableName: 'migrations-table' }).callsFake(async (input: { Key: { pk: string } }) => ({
      Item: stored.get(input.Key.pk),
    }));
    const response = await callMigrate();
    expect(response.statusCode).toBe(200);
    const { migrationId } = (response.body.result?.data ?? {}) as { migrationId: string };
    expect(stored.get(migrationKey(migrationId).pk)).toBeDefined();
    expect(sqs).toHaveReceivedCommandWith(SendMessageCommand, { MessageBody: JSON.stringify({ migrationId }) });
    expect(ddb).not.toHaveReceivedCommand(PutCommand);
    expect(failedUpdates()).toEqual([]);
  });

  test('two migrations get different, increasing ids', async () => {
    const first = await callMigrate();
    const second = await callMigrate({ ...request, documentId: 'doc-c', newDocumentId: 'doc-d' });
    const [a, b] = [first, second].map((r) => ((r.body.result?.data ?? {}) as { migrationId?: string }).migrationId);
    expect(a).not.toBe(b);
    expect((a as string) < (b as string)).toBe(true);
  });

  test('the same request while its migration is active answers the same id and queues nothing', async () => {
    const existing = record({ status: 'pending' });
    lockHeldBy(existing);
    const response = await callMigrate();
    expect(response.statusCode).toBe(200);
    expect(response.body.result?.data).toEqual({ migrationId: existing.migrationId });
    expect(sqs).not.toHaveReceivedCommand(SendMessageCommand);
    expect(ddb).not.toHaveReceivedCommand(PutCommand);
  });

  test('a repeat after an attempt that stopped before queuing finishes that migration instead of a new one', async () => {
    const stopped = record({ status: 'pending', queuedAt: undefined, createdAt: new Date().toISOString() });
    lockHeldBy(stopped);
    const response = await callMigrate();
    expect(response.statusCode).toBe(200);
    expect(response.body.result?.data).toEqual({ migrationId: stopped.migrationId });
    expect(sqs).toHaveReceivedCommandWith(SendMessageCommand, {
      MessageBody: JSON.stringify({ migrationId: stopped.migrationId }),
    });
    // Its target lock is taken for it; no second record is written.
    expect(ddb).toHaveReceivedCommandWith(PutCommand, {
      Item: expect.objectContaining({ ...lockKey('org-1', 'doc-b'), migrationId: stopped.migrationId }),
    });
    expect(ddb).not.toHaveReceivedCommandWith(PutCommand, { Item: expect.objectContaining({ status: 'pending' }) });
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      Key: migrationKey(stopped.migrationId),
      UpdateExpression: 'SET queuedAt = :at',
    });
  });

  test.each([
    ['the source is the source of another migration', 'doc-a', { newDocumentId: 'doc-z' }],
    ['the source is the target of another migration', 'doc-a', { documentId: 'doc-z', newDocumentId: 'doc-a' }],
    ['the target is the source of another migration', 'doc-b', { documentId: 'doc-b', newDocumentId: 'doc-z' }],
  ])('409 ABORTED when %s; nothing queued, nothing left pending', async (_name, locked, other) => {
    lockHeldBy(record(other), locked);
    const response = await callMigrate();
    expect(response.statusCode).toBe(409);
    expect(response.body.error?.status).toBe('ABORTED');
    // The migration in the way, which the caller can follow with migrate/status.
    expect(response.body.error?.details).toEqual({ migrationId: record(other).migrationId });
    expect(sqs).not.toHaveReceivedCommand(SendMessageCommand);
    // The record this request wrote is failed, and a source lock it took is given back.
    expect(failedUpdates()).toHaveLength(1);
    if (locked === 'doc-b') {
      expect(ddb).toHaveReceivedCommandWith(DeleteCommand, { Key: lockKey('org-1', 'doc-a') });
    }
  });

  test('a lock left by a finished migration is taken over', async () => {
    lockHeldBy(record({ status: 'completed', newDocumentId: 'doc-z' }));
    const response = await callMigrate();
    expect(response.statusCode).toBe(200);
    expect(sqs).toHaveReceivedCommandTimes(SendMessageCommand, 1);
    expect(ddb).toHaveReceivedCommandWith(PutCommand, {
      Item: expect.objectContaining(lockKey('org-1', 'doc-a')),
      ConditionExpression: 'migrationId = :holder',
    });
  });

  test('a message that cannot be queued: 503 UNAVAILABLE, the migration failed, its locks released', async () => {
    sqs.on(SendMessageCommand).rejects(Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable' }));
    const response = await callMigrate();
    expect(response.statusCode).toBe(503);
    expect(response.body.error?.status).toBe('UNAVAILABLE');
    const { migrationId } = (response.body.error?.details ?? {}) as { migrationId: string };
    expect(failedUpdates()).toEqual([
      expect.objectContaining({
        Key: migrationKey(migrationId),
        ExpressionAttributeValues: expect.objectContaining({ ':reason': 'The migration could not be queued.' }),
      }),
    ]);
    expect(ddb).toHaveReceivedCommandWith(DeleteCommand, { Key: lockKey('org-1', 'doc-a') });
    expect(ddb).toHaveReceivedCommandWith(DeleteCommand, { Key: lockKey('org-1', 'doc-b') });
    expect(ddb).not.toHaveReceivedCommandWith(UpdateCommand, { UpdateExpression: 'SET queuedAt = :at' });
  });

  test('DynamoDB throttling after the SDK retries: 503 UNAVAILABLE, nothing queued', async () => {
    lockHeldBy(record({ status: 'completed', newDocumentId: 'doc-z' }));
    ddb.on(PutCommand).rejects(
      Object.assign(new Error('Rate exceeded'), {
        name: 'ProvisionedThroughputExceededException',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const response = await callMigrate();
    expect(response.statusCode).toBe(503);
    expect(response.body.error?.status).toBe('UNAVAILABLE');
    expect(sqs).not.toHaveReceivedCommand(SendMessageCommand);
  });

  test('the start transaction cancelled for capacity (the SDK does not retry it): 503 UNAVAILABLE, nothing else written', async () => {
    ddb.on(TransactWriteCommand).rejects(transactionCancelled('None', 'ThrottlingError', 'None'));
    const response = await callMigrate();
    expect(response.statusCode).toBe(503);
    expect(response.body.error?.status).toBe('UNAVAILABLE');
    expect(sqs).not.toHaveReceivedCommand(SendMessageCommand);
    expect(ddb).not.toHaveReceivedCommand(PutCommand);
  });

  test.each([
    [{ ...request, newDocumentId: 'doc-a' }, 'data.newDocumentId: newDocumentId must differ from documentId'],
    [{ organizationId: 'org-1', documentId: 'doc-a' }, 'data.newDocumentId is required'],
    [{ ...request, documentId: 'x'.repeat(257) }, 'data.documentId: documentId must be at most 256 characters'],
    [{ ...request, extra: 1 }, 'data has an unknown key: extra'],
  ])('invalid request %#: 400 INVALID_ARGUMENT naming the field, nothing written', async (data, message) => {
    const response = await callMigrate(data);
    expect(response.statusCode).toBe(400);
    expect(response.body.error?.status).toBe('INVALID_ARGUMENT');
    expect(response.body.error?.message).toContain(message);
    expect(ddb).not.toHaveReceivedCommand(PutCommand);
    expect(ddb).not.toHaveReceivedCommand(TransactWriteCommand);
  });

  test('an organization not granted to the credential: 403 PERMISSION_DENIED', async () => {
    const response = await callMigrate({ ...request, organizationId: 'org-2' });
    expect(response.statusCode).toBe(403);
    expect(ddb).not.toHaveReceivedCommand(PutCommand);
    expect(ddb).not.toHaveReceivedCommand(TransactWriteCommand);
  });
});

describe('POST /v2/organizations/documents/migrate/status', () => {
  test('answers the migration state', async () => {
    const existing = record({ status: 'completed', completedAt: '2026-03-01T00:00:05.000Z', leaseOwner: 'x' });
    ddb
      .on(GetCommand, { Key: migrationKey(existing.migrationId) })
      .resolves({ Item: { ...migrationKey(existing.migrationId), ...existing } });
    const response = await callStatus({ organizationId: 'org-1', migrationId: existing.migrationId });
    expect(response.statusCode).toBe(200);
    expect(response.body.result?.data).toEqual({
      migrationId: existing.migrationId,
      organizationId: 'org-1',
      documentId: 'doc-a',
      newDocumentId: 'doc-b',
      status: 'completed',
      moved: 12,
      skipped: 3,
      createdAt: existing.createdAt,
      updatedAt: existing.updatedAt,
      completedAt: '2026-03-01T00:00:05.000Z',
    });
  });

  test('a failed migration carries its reason', async () => {
    const existing = record({ status: 'failed', error: 'The migration could not be queued.' });
    ddb.on(GetCommand, { Key: migrationKey(existing.migrationId) }).resolves({ Item: existing });
    const response = await callStatus({ organizationId: 'org-1', migrationId: existing.migrationId });
    expect(response.body.result?.data).toMatchObject({ status: 'failed', error: 'The migration could not be queued.' });
  });

  test('an unknown id and an id of another organization are the same 404 NOT_FOUND', async () => {
    const foreign = record({ organizationId: 'org-2' });
    ddb.on(GetCommand, { Key: migrationKey(foreign.migrationId) }).resolves({ Item: foreign });
    const unknown = await callStatus({ organizationId: 'org-1', migrationId: '01JUNKNOWN' });
    const other = await callStatus({ organizationId: 'org-1', migrationId: foreign.migrationId });
    for (const response of [unknown, other]) {
      expect(response.statusCode).toBe(404);
      expect(response.body.error?.status).toBe('NOT_FOUND');
    }
    expect(other.body.error?.message).toBe(unknown.body.error?.message);
  });
});
