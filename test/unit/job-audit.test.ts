import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, beforeEach, describe, expect, jest, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import type { HttpHandler } from '#shared/edge/http-route.js';
import { ENV } from '#shared/platform/environment.js';
import { logger } from '#shared/platform/logger.js';
import { apiEvent, lambdaContext, parseResponse } from '../support/api-events.js';
import { authHeaders, credentialRecord, TEST_TOKEN } from '../support/credentials.js';
import { setUnitTestEnv } from '../support/test-env.js';

// Who started a job: every job record keeps the API key that asked for it (`requestedBy`),
// which no status answer shows, and each start logs one audit line at INFO, never the token.
setUnitTestEnv();
process.env[ENV.erasureQueueUrl] = 'https://sqs.eu-west-1.amazonaws.com/000000000000/erasures';
logger.setLogLevel('SILENT');
const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const API_KEY = 'ak_auditor';
const handlers = {} as Record<'migrate' | 'migrationStatus' | 'erase' | 'erasureStatus', HttpHandler>;

beforeAll(async () => {
  handlers.migrate = (await import('#functions/migrate-document.js')).handler;
  handlers.migrationStatus = (await import('#functions/get-migration-status.js')).handler;
  handlers.erase = (await import('#functions/erase-user.js')).handler;
  handlers.erasureStatus = (await import('#functions/get-erasure-status.js')).handler;
});
beforeEach(() => {
  ddb.reset();
  sqs.reset();
  ddb.on(GetCommand).resolves({});
  ddb
    .on(GetCommand, { TableName: 'credentials-table', Key: { apiKey: API_KEY } })
    .resolves({ Item: credentialRecord({ apiKey: API_KEY }) });
  ddb.on(PutCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
  ddb.on(DeleteCommand).resolves({});
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
});
afterEach(() => {
  jest.restoreAllMocks();
});

const call = async (handler: HttpHandler, path: string, data: unknown) =>
  parseResponse(await handler(apiEvent(path, { headers: authHeaders(API_KEY), body: { data } }), lambdaContext()));

/** The job record the start wrote (the `pending` item of its transaction with the locks). */
const writtenRecord = () =>
  ddb
    .commandCalls(TransactWriteCommand)
    .flatMap((c) => (c.args[0].input.TransactItems ?? []).map((t) => t.Put?.Item as Record<string, unknown>))
    .find((item) => item.status === 'pending');

describe.each([
  {
    kind: 'migration',
    start: 'migrate' as const,
    path: '/v2/organizations/documents/migrate',
    data: { organizationId: 'org-1', documentId: 'doc-a', newDocumentId: 'doc-b' },
    idAttribute: 'migrationId',
  },
  {
    kind: 'erasure',
    start: 'erase' as const,
    path: '/v2/organizations/users/erase',
    data: { organizationId: 'org-1', userId: 'alice' },
    idAttribute: 'erasureId',
  },
])('starting a $kind', ({ kind, start, path, data, idAttribute }) => {
  test('records the API key that asked for it, and logs one audit line without the token', async () => {
    const info = jest.spyOn(logger, 'info');
    const response = await call(handlers[start], path, data);
    expect(response.statusCode).toBe(200);
    const id = ((response.body.result?.data ?? {}) as Record<string, string>)[idAttribute];

    expect(writtenRecord()).toMatchObject({ [idAttribute]: id, status: 'pending', requestedBy: API_KEY });
    const audit = info.mock.calls.filter(([message]) => message === 'Job started');
    expect(audit).toEqual([['Job started', { kind, jobId: id, organizationId: 'org-1', requestedBy: API_KEY }]]);
    expect(JSON.stringify(info.mock.calls)).not.toContain(TEST_TOKEN);
  });

  test('a start that cannot queue its job logs no audit line', async () => {
    sqs.on(SendMessageCommand).rejects(Object.assign(new Error('down'), { name: 'ServiceUnavailable' }));
    const info = jest.spyOn(logger, 'info');
    expect((await call(handlers[start], path, data)).statusCode).toBe(503);
    expect(info.mock.calls.filter(([message]) => message === 'Job started')).toEqual([]);
  });
});

describe('no status answer shows who started the job', () => {
  const now = new Date().toISOString();
  test.each([
    {
      handler: 'migrationStatus' as const,
      path: '/v2/organizations/documents/migrate/status',
      key: { pk: 'MIGRATION#m-1', sk: 'RECORD' },
      record: { migrationId: 'm-1', documentId: 'doc-a', newDocumentId: 'doc-b', moved: 1, skipped: 0 },
      data: { organizationId: 'org-1', migrationId: 'm-1' },
    },
    {
      handler: 'erasureStatus' as const,
      path: '/v2/organizations/users/erase/status',
      key: { pk: 'ERASURE#e-1', sk: 'RECORD' },
      record: { erasureId: 'e-1', userId: 'alice', erased: 2 },
      data: { organizationId: 'org-1', erasureId: 'e-1' },
    },
  ])('$path', async ({ handler, path, key, record, data }) => {
    const stored = {
      ...key,
      ...record,
      organizationId: 'org-1',
      status: 'in_progress',
      createdAt: now,
      updatedAt: now,
      queuedAt: now,
      runs: {},
      requestedBy: API_KEY,
    };
    ddb.on(GetCommand, { Key: key }).resolves({ Item: stored });
    const response = await call(handlers[handler], path, data);
    expect(response.statusCode).toBe(200);
    expect(response.body.result?.data).toMatchObject({ ...record, status: 'in_progress' });
    expect(JSON.stringify(response.body)).not.toContain(API_KEY);
  });
});
