import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  BatchGetCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { lockKey, migrationKey } from '#shared/migration/keys.js';
import { logger } from '#shared/platform/logger.js';
import { migrationRecord, sqsRecord } from '../support/migration-records.js';
import { setUnitTestEnv } from '../support/test-env.js';

setUnitTestEnv(); // MIGRATION_MAX_RECEIVE_COUNT = 5
logger.setLogLevel('SILENT');
const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
let handler: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

beforeAll(async () => {
  ({ handler } = await import('#functions/migration-consumer.js'));
});

const record = migrationRecord;
const message = (migrationId: string, receiveCount = 1) =>
  sqsRecord(JSON.stringify({ migrationId }), receiveCount, `msg-${migrationId}-${receiveCount}`);

const context = (remainingMs = 60_000) =>
  ({
    awsRequestId: 'req-1',
    functionName: 'consumer',
    getRemainingTimeInMillis: () => remainingMs,
  }) as unknown as Context;

const throttled = () =>
  Object.assign(new Error('Rate exceeded'), {
    name: 'ProvisionedThroughputExceededException',
    $metadata: { httpStatusCode: 400 },
  });

/** The lease on this migration is granted; its source document is empty. */
const emptyMigration = (migrationId: string) => {
  ddb.on(UpdateCommand, { Key: migrationKey(migrationId) }).resolves({ Attributes: record(migrationId) });
  ddb
    .on(QueryCommand, { ExpressionAttributeValues: { ':pk': `DOC#org-1#${migrationId}-src` } })
    .resolves({ Items: [] });
};

const failedUpdates = () =>
  ddb
    .commandCalls(UpdateCommand)
    .map((c) => c.args[0].input)
    .filter((input) => input.ExpressionAttributeValues?.[':failed'] === 'failed');

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  ddb.on(DeleteCommand).resolves({});
  ddb.on(BatchGetCommand).resolves({ Responses: {} });
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm' });
});

describe('migration consumer', () => {
  test('reports failures per record: the failed one is retried, the others are acknowledged', async () => {
    emptyMigration('mig-ok');
    ddb.on(UpdateCommand, { Key: migrationKey('mig-bad') }).rejects(throttled());
    const response = await handler({ Records: [message('mig-bad'), message('mig-ok')] }, context());
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'msg-mig-bad-1' }] });
    // The good one completed and released its locks.
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      Key: migrationKey('mig-ok'),
      ExpressionAttributeValues: expect.objectContaining({ ':completed': 'completed' }),
    });
    expect(ddb).toHaveReceivedCommandWith(DeleteCommand, { Key: lockKey('org-1', 'mig-ok-src') });
    expect(ddb).toHaveReceivedCommandWith(DeleteCommand, { Key: lockKey('org-1', 'mig-ok-dst') });
  });

  test('a batch where every record fails is still answered per record, not thrown', async () => {
    ddb.on(UpdateCommand).rejects(throttled());
    const response = await handler({ Records: [message('a'), message('b')] }, context());
    expect(response.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['msg-a-1', 'msg-b-1']);
  });

  test.each([
    ['not JSON', 'not json'],
    ['no migrationId', '{}'],
    ['a wrong type', '{"migrationId":42}'],
    ['an extra key', '{"migrationId":"m","x":1}'],
  ])('a poison message (%s) is acknowledged without touching any table', async (_name, body) => {
    const response = await handler({ Records: [sqsRecord(body)] }, context());
    expect(response).toEqual({ batchItemFailures: [] });
    expect(ddb.calls()).toHaveLength(0);
  });

  test('a message for a migration that is already finished is acknowledged', async () => {
    ddb
      .on(UpdateCommand, { Key: migrationKey('done') })
      .rejects(Object.assign(new Error('conditional'), { name: 'ConditionalCheckFailedException' }));
    ddb.on(GetCommand, { Key: migrationKey('done') }).resolves({ Item: record('done', { status: 'completed' }) });
    expect(await handler({ Records: [message('done')] }, context())).toEqual({ batchItemFailures: [] });
  });

  test('a live lease held by another delivery: the message is retried later', async () => {
    ddb
      .on(UpdateCommand, { Key: migrationKey('busy') })
      .rejects(Object.assign(new Error('conditional'), { name: 'ConditionalCheckFailedException' }));
    ddb
      .on(GetCommand, { Key: migrationKey('busy') })
      .resolves({ Item: record('busy', { leaseOwner: 'other', leaseUntil: Date.now() + 30_000 }) });
    const response = await handler({ Records: [message('busy', 2)] }, context());
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'msg-busy-2' }] });
    expect(failedUpdates()).toHaveLength(0);
    expect(sqs).not.toHaveReceivedCommand(SendMessageCommand);
  });

  test('a live lease on the last attempt: not failed, a message comes back once the lease expires', async () => {
    ddb
      .on(UpdateCommand, { Key: migrationKey('busy') })
      .rejects(Object.assign(new Error('conditional'), { name: 'ConditionalCheckFailedException' }));
    ddb
      .on(GetCommand, { Key: migrationKey('busy') })
      .resolves({ Item: record('busy', { leaseOwner: 'other', leaseUntil: Date.now() + 30_000 }) });
    const response = await handler({ Records: [message('busy', 5)] }, context());
    expect(response).toEqual({ batchItemFailures: [] });
    expect(failedUpdates()).toHaveLength(0);
    const [sent] = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input);
    expect(sent?.MessageBody).toBe(JSON.stringify({ migrationId: 'busy' }));
    expect(sent?.DelaySeconds).toBe(10); // at most 10 s, then it looks again
  });

  test('an error on the last attempt marks the migration failed with a reason and releases its locks', async () => {
    ddb.on(UpdateCommand, { Key: migrationKey('last') }).resolves({ Attributes: record('last') });
    ddb.on(QueryCommand).rejects(throttled());
    const response = await handler({ Records: [message('last', 5)] }, context());
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'msg-last-5' }] });
    const [failed] = failedUpdates();
    expect(failed?.ExpressionAttributeValues?.[':reason']).toMatch(
      /failed after 5 attempts \(ProvisionedThroughputExceededException\)/,
    );
    expect(ddb).toHaveReceivedCommandWith(DeleteCommand, { Key: lockKey('org-1', 'last-src') });
    expect(ddb).toHaveReceivedCommandWith(DeleteCommand, { Key: lockKey('org-1', 'last-dst') });
  });

  test('an error before the last attempt only releases the lease for the retry', async () => {
    ddb.on(UpdateCommand, { Key: migrationKey('early') }).resolves({ Attributes: record('early') });
    ddb.on(QueryCommand).rejects(throttled());
    const response = await handler({ Records: [message('early', 4)] }, context());
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'msg-early-4' }] });
    expect(failedUpdates()).toHaveLength(0);
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, { UpdateExpression: 'REMOVE leaseOwner, leaseUntil' });
    expect(ddb).not.toHaveReceivedCommand(DeleteCommand);
  });

  test('near the time limit, after a page, it queues a continuation and acknowledges the message', async () => {
    ddb.on(UpdateCommand, { Key: migrationKey('long') }).resolves({ Attributes: record('long') });
    ddb.on(QueryCommand).resolves({
      Items: [
        {
          pk: 'DOC#org-1#long-src',
          sk: 'u1',
          organizationId: 'org-1',
          userId: 'u1',
          documentId: 'long-src',
          scope: 'document',
          inbox: 'ALL',
          updatedAt: '2026-03-01T00:00:00.000Z',
          updatedBy: 'ak',
          version: 1,
        },
      ],
    });
    ddb.on(BatchGetCommand).resolves({ Responses: { 'config-table': [] } });
    ddb.on(TransactWriteCommand).resolves({});
    const response = await handler({ Records: [message('long')] }, context(1_000));
    expect(response).toEqual({ batchItemFailures: [] });
    expect(ddb).toHaveReceivedCommandTimes(QueryCommand, 1);
    // The copy, with the source's stamp in the same transaction (the copy is written only while the source is as read).
    expect(ddb).toHaveReceivedCommandWith(TransactWriteCommand, {
      TransactItems: [
        {
          Put: expect.objectContaining({
            TableName: 'config-table',
            Item: expect.objectContaining({ pk: 'DOC#org-1#long-dst', sk: 'u1', inbox: 'ALL', migrationId: 'long' }),
          }),
        },
        {
          Update: expect.objectContaining({
            Key: { pk: 'DOC#org-1#long-src', sk: 'u1' },
            // Only while the source has the version and write time it was read with; the stamp
            // is the migration's attribution, its evidence included.
            ConditionExpression: '#a4 = :v4 AND #a5 = :v5',
            ExpressionAttributeNames: expect.objectContaining({
              '#a3': 'changeEvidence',
              '#a4': 'version',
              '#a5': 'updatedAt',
            }),
            ExpressionAttributeValues: expect.objectContaining({
              ':v3': JSON.stringify({ via: 'migration', migrationId: 'long' }),
              ':v4': 1,
              ':v5': '2026-03-01T00:00:00.000Z',
            }),
          }),
        },
      ],
    });
    expect(sqs).toHaveReceivedCommandWith(SendMessageCommand, { MessageBody: JSON.stringify({ migrationId: 'long' }) });
  });
});
