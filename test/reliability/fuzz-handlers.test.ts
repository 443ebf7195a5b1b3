import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { hashToken } from '#shared/auth/credential.js';
import type { HttpHandler } from '#shared/http/handler.js';
import { ENV } from '#shared/settings.js';
import { apiEvent, lambdaContext } from '../support/api-events.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';
import { assertErrorEnvelope, badRequests, FUZZ_RUNS } from '../support/fuzz.js';

// In-process: generated bad requests go through the real handlers and a real (embedded)
// DynamoDB. Every answer must be a contract envelope with a matching HTTP status, never a
// 5xx, and nothing may be written.
let dynamo: TestDynamo;
const apiKey = 'ak_fuzz';
const token = 'st_fuzz-token';
const handlers: Record<string, HttpHandler> = {};

beforeAll(async () => {
  dynamo = await startTestDynamo();
  process.env[ENV.configTable] = dynamo.tables.config;
  process.env[ENV.credentialsTable] = dynamo.tables.credentials;
  process.env[ENV.migrationsTable] = dynamo.tables.migrations;
  process.env[ENV.migrationQueueUrl] = 'http://127.0.0.1:9/000000000000/unused';
  process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamo.endpoint;
  process.env.AWS_REGION = 'local';
  process.env.AWS_ACCESS_KEY_ID = 'local';
  process.env.AWS_SECRET_ACCESS_KEY = 'local';
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  await dynamo.doc.send(
    new (await import('@aws-sdk/lib-dynamodb')).PutCommand({
      TableName: dynamo.tables.credentials,
      Item: { apiKey, tokenHash: hashToken(token), organizationIds: ['org-1'], createdAt: new Date().toISOString() },
    }),
  );
  handlers.set = (await import('#functions/config-set.js')).handler;
  handlers.get = (await import('#functions/config-get.js')).handler;
});
afterAll(async () => {
  await dynamo?.close();
});

const scanAll = async (table: string) => (await dynamo.doc.send(new ScanCommand({ TableName: table }))).Items ?? [];

const routes: { name: string; path: string; valid: Record<string, unknown>; required: string[] }[] = [
  {
    name: 'set',
    path: '/v2/notifications/config/set',
    valid: {
      organizationId: 'org-1',
      userIds: ['u1', 'u2'],
      documentIds: ['d1'],
      config: { inbox: 'ALL', email: 'NONE' },
    },
    required: ['organizationId', 'userIds', 'config'],
  },
  {
    name: 'get',
    path: '/v2/notifications/config/get',
    valid: { organizationId: 'org-1', userId: 'u1', documentIds: ['d1'] },
    required: ['organizationId', 'userId'],
  },
];

describe.each(routes)('generated bad requests to $path', ({ name, path, valid, required }) => {
  test(`${FUZZ_RUNS} cases: valid envelope, matching status, no 5xx, tables unchanged`, async () => {
    const before = await scanAll(dynamo.tables.config);
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(badRequests(valid, required, apiKey, token), async (request) => {
        const handler = handlers[name] as HttpHandler;
        const response = await handler(
          apiEvent(path, { method: request.method, headers: request.headers, rawBody: request.body }),
          lambdaContext(),
        );
        const status = assertErrorEnvelope({
          httpStatus: response.statusCode ?? 0,
          contentType: response.headers?.['content-type'] as string | undefined,
          body: JSON.parse(response.body ?? 'null'),
        });
        seen.set(status, (seen.get(status) ?? 0) + 1);
      }),
      { numRuns: FUZZ_RUNS },
    );
    expect(await scanAll(dynamo.tables.config)).toEqual(before);
    // The generator reaches every layer: authentication, authorization and validation.
    expect([...seen.keys()].sort()).toEqual(
      expect.arrayContaining(['INVALID_ARGUMENT', 'PERMISSION_DENIED', 'UNAUTHENTICATED']),
    );
  });
});
