import { basename } from 'node:path';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { handlerEntryOf, ROUTES } from '#service/routes.js';
import { hashToken } from '#shared/auth/credential.js';
import type { HttpHandler } from '#shared/edge/http-route.js';
import { apiEvent, lambdaContext } from '../support/api-events.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';
import { badRequests } from '../support/fuzz/bad-requests.js';
import { assertErrorEnvelope } from '../support/fuzz/error-envelope.js';
import { ROUTE_FUZZ_SPECS } from '../support/fuzz/route-specs.js';
import { FUZZ_RUNS, FUZZ_TIMEOUT_MS } from '../support/fuzz/runs.js';
import { setDynamoTestEnv } from '../support/test-env.js';

// In-process: generated bad requests go through the real handlers and a real (embedded)
// DynamoDB. Every answer must be a contract envelope with a matching HTTP status, never a
// 5xx, nothing may be written to any table, and nothing may reach the migration queue.
let dynamo: TestDynamo;
const apiKey = 'ak_fuzz';
const token = 'st_fuzz-token';
const handlers: Record<string, HttpHandler> = {};
// Every SQSClient (the migrate function's included) records its calls instead of sending.
const sqs = mockClient(SQSClient);

beforeAll(async () => {
  dynamo = await startTestDynamo({ tables: 'own' });
  setDynamoTestEnv(dynamo);
  await dynamo.doc.send(
    new PutCommand({
      TableName: dynamo.tables.credentials,
      Item: { apiKey, tokenHash: hashToken(token), organizationIds: ['org-1'], createdAt: new Date().toISOString() },
    }),
  );
  for (const route of ROUTES) {
    const module = (await import(`#functions/${basename(handlerEntryOf(route), '.ts')}.js`)) as {
      handler: HttpHandler;
    };
    handlers[route.operationId] = module.handler;
  }
});
afterAll(async () => {
  sqs.restore();
  await dynamo?.close();
});

const scanAll = async (table: string) => (await dynamo.doc.send(new ScanCommand({ TableName: table }))).Items ?? [];
const allTables = async () => ({
  config: await scanAll(dynamo.tables.config),
  migrations: await scanAll(dynamo.tables.migrations),
  credentials: await scanAll(dynamo.tables.credentials),
  history: await scanAll(dynamo.tables.history),
});

test('every route has a fuzz spec, and every spec is a route', () => {
  expect(ROUTE_FUZZ_SPECS.map((spec) => [spec.name, spec.path])).toEqual(
    ROUTES.map((route) => [route.operationId, route.path]),
  );
});

describe.each(ROUTE_FUZZ_SPECS)(
  'generated bad requests to $path',
  ({ name, path, valid, required, extraMutations, accepted }) => {
    test(
      `${FUZZ_RUNS} cases: valid envelope, matching status, no 5xx, tables unchanged, nothing queued`,
      async () => {
        const before = await allTables();
        sqs.resetHistory();
        const seen = new Map<string, number>();
        await fc.assert(
          fc.asyncProperty(
            badRequests(valid, required, apiKey, token, {
              extraMutations: extraMutations ?? [],
              accepted: accepted ?? {},
            }),
            async (request) => {
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
            },
          ),
          { numRuns: FUZZ_RUNS },
        );
        expect(await allTables()).toEqual(before);
        expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
        // The generator reaches every layer: authentication, authorization and validation.
        expect([...seen.keys()].sort()).toEqual(
          expect.arrayContaining(['INVALID_ARGUMENT', 'PERMISSION_DENIED', 'UNAUTHENTICATED']),
        );
      },
      FUZZ_TIMEOUT_MS,
    );
  },
);

test('control: a valid migrate request is accepted and queues exactly one message (the checks above can see one)', async () => {
  sqs.resetHistory();
  const response = await (handlers.migrateDocument as HttpHandler)(
    apiEvent('/v2/organizations/documents/migrate', {
      headers: { 'x-service-api-key': apiKey, 'x-service-auth-token': token },
      body: { data: { organizationId: 'org-1', documentId: 'control-a', newDocumentId: 'control-b' } },
    }),
    lambdaContext(),
  );
  expect(response.statusCode).toBe(200);
  expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(1);
  expect(await scanAll(dynamo.tables.migrations)).not.toHaveLength(0);
});
