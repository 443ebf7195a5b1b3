import { SQSClient } from '@aws-sdk/client-sqs';
import {
  BatchGetCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, beforeEach, describe, expect, jest, test } from '@jest/globals';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import type { HttpHandler } from '#shared/edge/http-route.js';
import { migrationKey } from '#shared/migration/keys.js';
import { metricsRecorded } from '#shared/platform/environment.js';
import { logger } from '#shared/platform/logger.js';
import { apiEvent, lambdaContext } from '../support/api-events.js';
import { authHeaders, credentialRecord, TEST_TOKEN } from '../support/credentials.js';
import { migrationRecord, sqsRecord } from '../support/migration-records.js';
import { setUnitTestEnv } from '../support/test-env.js';

// The business metrics as CloudWatch receives them: EMF lines on stdout, one per invocation,
// written by the handlers themselves (metrics module, logMetrics middleware).
setUnitTestEnv();
// Outside Lambda metrics are recorded only when asked for; `false` also keeps Powertools emitting.
process.env.POWERTOOLS_METRICS_DISABLED = 'false';
process.env.POWERTOOLS_METRICS_NAMESPACE = 'NotificationPreferences-test';
logger.setLogLevel('SILENT');

const ddb = mockClient(DynamoDBDocumentClient);
mockClient(SQSClient);
const handlers = {} as Record<'set' | 'get' | 'reset', HttpHandler>;
let consumer: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

beforeAll(async () => {
  handlers.set = (await import('#functions/set-config.js')).handler;
  handlers.get = (await import('#functions/get-config.js')).handler;
  handlers.reset = (await import('#functions/reset-config.js')).handler;
  ({ handler: consumer } = await import('#functions/migration-consumer.js'));
});

beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand).resolves({});
  ddb.on(GetCommand, { Key: { apiKey: 'ak_test' } }).resolves({ Item: credentialRecord() });
  ddb
    .on(GetCommand, { Key: { apiKey: 'ak_revoked' } })
    .resolves({ Item: credentialRecord({ apiKey: 'ak_revoked', revokedAt: '2026-02-01T00:00:00.000Z' }) });
  ddb
    .on(GetCommand, { Key: { apiKey: 'ak_expired' } })
    .resolves({ Item: credentialRecord({ apiKey: 'ak_expired', expiresAt: '2026-02-01T00:00:00.000Z' }) });
  ddb.on(UpdateCommand).resolves({});
  ddb.on(DeleteCommand).resolves({});
  ddb.on(BatchGetCommand).resolves({ Responses: { 'config-table': [] } });
});
afterEach(() => {
  jest.restoreAllMocks();
});

interface EmfLine {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
  [key: string]: unknown;
}

/** Runs `work` with stdout captured: the EMF lines it printed, and everything else it printed. */
const captured = async (work: () => Promise<unknown>) => {
  const written: string[] = [];
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  const warnings = jest.spyOn(logger, 'warn');
  try {
    await work();
  } finally {
    jest.restoreAllMocks();
  }
  const lines = written.join('').split('\n').filter(Boolean);
  return {
    emf: lines.map((line) => JSON.parse(line) as EmfLine).filter((line) => '_aws' in line),
    text: written.join(''),
    warnings: warnings.mock.calls,
  };
};

const post = (name: keyof typeof handlers, data: unknown, headers: Record<string, string> = authHeaders()) =>
  handlers[name](apiEvent(`/any/${name}`, { headers, body: { data } }), lambdaContext());

/** Each metric of an EMF line with its value, its namespace and its dimensions. */
const metricsOf = (line: EmfLine) =>
  line._aws.CloudWatchMetrics.flatMap(({ Namespace, Dimensions, Metrics }) =>
    Metrics.map(({ Name }) => ({
      name: Name,
      value: line[Name],
      namespace: Namespace,
      dimensions: Object.fromEntries((Dimensions[0] ?? []).map((key) => [key, line[key]])),
    })),
  );

const SERVICE = { service: 'notification-preferences' };

describe('preferences', () => {
  test('config/set counts the entries it wrote, in one line for the invocation', async () => {
    const { emf } = await captured(() =>
      post('set', {
        organizationId: 'org-1',
        userIds: ['a', 'b', 'c'],
        documentIds: ['d1', 'd2'],
        config: { email: 'NONE' },
      }),
    );
    expect(emf).toHaveLength(1);
    expect(metricsOf(emf[0] as EmfLine)).toEqual([
      { name: 'EntriesSet', value: 6, namespace: 'NotificationPreferences-test', dimensions: SERVICE },
    ]);
  });

  test('config/reset counts its entries under its own name', async () => {
    const { emf } = await captured(() => post('reset', { organizationId: 'org-1', userIds: ['a', 'b'] }));
    expect(emf.flatMap(metricsOf)).toEqual([
      { name: 'EntriesReset', value: 2, namespace: 'NotificationPreferences-test', dimensions: SERVICE },
    ]);
  });

  test('a read records nothing, and says nothing about it above debug', async () => {
    const { emf, text, warnings } = await captured(() => post('get', { organizationId: 'org-1', userId: 'a' }));
    expect(emf).toEqual([]);
    expect(text).toBe('');
    expect(warnings).toEqual([]);
  });
});

describe('authentication failures, by reason', () => {
  const data = { organizationId: 'org-1', userId: 'a' };
  test.each([
    ['missing', {}],
    ['missing', { 'x-service-api-key': 'ak_test' }],
    ['malformed', authHeaders('ak with spaces')],
    ['malformed', authHeaders('ak_test', 'x'.repeat(300))],
    ['unknown', authHeaders('ak_nobody')],
    ['wrong_token', authHeaders('ak_test', 'st_not-the-token')],
    ['revoked', authHeaders('ak_revoked')],
    ['expired', authHeaders('ak_expired')],
  ])('%s: one AuthFailures count with the reason, never the key or the token', async (reason, headers) => {
    const { emf, text } = await captured(() => post('get', data, headers as Record<string, string>));
    expect(emf.flatMap(metricsOf)).toEqual([
      { name: 'AuthFailures', value: 1, namespace: 'NotificationPreferences-test', dimensions: { ...SERVICE, reason } },
    ]);
    for (const secret of [TEST_TOKEN, 'st_not-the-token', 'ak_nobody', 'ak_test', 'ak_revoked', 'ak_expired']) {
      expect(text).not.toContain(secret);
    }
  });

  test('the reason does not stay on the next invocation', async () => {
    await captured(() => post('get', data, {}));
    const { emf } = await captured(() =>
      post('set', { organizationId: 'org-1', userIds: ['a'], config: { email: 'NONE' } }),
    );
    expect(emf.flatMap(metricsOf)).toEqual([
      { name: 'EntriesSet', value: 1, namespace: 'NotificationPreferences-test', dimensions: SERVICE },
    ]);
  });
});

describe('migrations', () => {
  const record = (migrationId: string) => migrationRecord(migrationId);
  const delivery = (migrationId: string, receiveCount: number): SQSEvent => ({
    Records: [sqsRecord(JSON.stringify({ migrationId }), receiveCount, `m-${migrationId}`)],
  });
  const context = { awsRequestId: 'r', functionName: 'consumer', getRemainingTimeInMillis: () => 60_000 } as Context;

  test('a completed migration is counted', async () => {
    ddb.on(UpdateCommand, { Key: migrationKey('done') }).resolves({ Attributes: record('done') });
    ddb.on(QueryCommand).resolves({ Items: [] });
    const { emf } = await captured(() => consumer(delivery('done', 1), context));
    expect(emf.flatMap(metricsOf)).toEqual([
      { name: 'MigrationsCompleted', value: 1, namespace: 'NotificationPreferences-test', dimensions: SERVICE },
    ]);
  });

  test('a migration marked failed on its last attempt is counted; a retried failure is not', async () => {
    ddb.on(UpdateCommand, { Key: migrationKey('bad') }).resolves({ Attributes: record('bad') });
    ddb.on(QueryCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    const retried = await captured(() => consumer(delivery('bad', 2), context));
    expect(retried.emf).toEqual([]);
    const last = await captured(() => consumer(delivery('bad', 5), context));
    expect(last.emf.flatMap(metricsOf)).toEqual([
      { name: 'MigrationsFailed', value: 1, namespace: 'NotificationPreferences-test', dimensions: SERVICE },
    ]);
  });
});

describe('where metrics are produced', () => {
  test('metrics: always in Lambda, elsewhere only when POWERTOOLS_METRICS_DISABLED is set', () => {
    expect(metricsRecorded({})).toBe(false);
    expect(metricsRecorded({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x' })).toBe(true);
    expect(metricsRecorded({ POWERTOOLS_METRICS_DISABLED: 'false' })).toBe(true);
  });
});
