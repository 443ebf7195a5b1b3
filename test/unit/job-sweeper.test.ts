import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DeleteCommand, DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, beforeEach, expect, test } from '@jest/globals';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { ENV } from '#shared/platform/environment.js';
import { setUnitTestEnv } from '../support/test-env.js';

// The scheduled sweeper (functions/migration-sweeper.ts) sweeps every kind of job: an erasure
// whose message was lost is found in its own partition of the index and re-queued on its queue.
setUnitTestEnv();
const ERASURE_QUEUE = 'https://sqs.eu-west-1.amazonaws.com/000000000000/erasures';
process.env[ENV.erasureQueueUrl] = ERASURE_QUEUE;
const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
let handler: (event: ScheduledEvent, context: Context) => Promise<unknown>;

beforeAll(async () => {
  ({ handler } = await import('#functions/migration-sweeper.js'));
});
beforeEach(() => {
  ddb.reset();
  sqs.reset();
  ddb.on(UpdateCommand).resolves({});
  ddb.on(DeleteCommand).resolves({});
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm' });
});

const hourAgo = new Date(Date.now() - 60 * 60_000).toISOString();
const stuckErasure = {
  pk: 'ERASURE#e-1',
  sk: 'RECORD',
  activePk: 'ACTIVE#ERASURE',
  erasureId: 'e-1',
  organizationId: 'org-1',
  userId: 'alice',
  status: 'pending',
  erased: 0,
  createdAt: hourAgo,
  updatedAt: hourAgo,
  queuedAt: hourAgo,
  runs: {},
};

test('one Query per kind of the index of active jobs; a quiet erasure is re-queued on the erasure queue', async () => {
  ddb.on(QueryCommand).resolves({ Items: [] });
  ddb
    .on(QueryCommand, { ExpressionAttributeValues: { ':active': 'ACTIVE#ERASURE' } })
    .resolves({ Items: [stuckErasure] });
  const context = { awsRequestId: 'r', functionName: 'sweeper' } as Context;
  const summary = await handler({} as ScheduledEvent, context);

  expect(summary).toEqual({
    migration: { candidates: 0, resumed: 0, failed: 0 },
    erasure: { candidates: 1, resumed: 1, failed: 0 },
    export: { candidates: 0, resumed: 0, failed: 0 },
    import: { candidates: 0, resumed: 0, failed: 0 },
  });
  const partitions = ddb
    .commandCalls(QueryCommand)
    .map((call) => call.args[0].input.ExpressionAttributeValues?.[':active']);
  expect(partitions.sort()).toEqual(['ACTIVE', 'ACTIVE#ERASURE', 'ACTIVE#EXPORT', 'ACTIVE#IMPORT']);
  expect(ddb).toHaveReceivedCommandWith(UpdateCommand, { Key: { pk: 'ERASURE#e-1', sk: 'RECORD' } });
  expect(sqs).toHaveReceivedCommandTimes(SendMessageCommand, 1);
  expect(sqs).toHaveReceivedCommandWith(SendMessageCommand, {
    QueueUrl: ERASURE_QUEUE,
    MessageBody: JSON.stringify({ erasureId: 'e-1' }),
  });
});

test('a kind whose sweep fails does not stop the others; the run fails after them', async () => {
  ddb.on(QueryCommand).rejects(new Error('index unavailable'));
  ddb
    .on(QueryCommand, { ExpressionAttributeValues: { ':active': 'ACTIVE#ERASURE' } })
    .resolves({ Items: [stuckErasure] });
  const context = { awsRequestId: 'r', functionName: 'sweeper' } as Context;
  await expect(handler({} as ScheduledEvent, context)).rejects.toThrow('index unavailable');
  expect(sqs).toHaveReceivedCommandWith(SendMessageCommand, { MessageBody: JSON.stringify({ erasureId: 'e-1' }) });
});
