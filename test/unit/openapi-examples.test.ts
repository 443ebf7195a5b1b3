import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { hashToken } from '#shared/auth/credential.js';
import type { HttpHandler } from '#shared/edge/http-route.js';
import { buildOpenApiDocument, type OpenApiDocument } from '#tools/openapi/document.js';
import { OPERATIONS, type OperationId } from '#tools/openapi/operations.js';
import { assertMatchesOpenApi } from '#tools/openapi/validate.js';
import { apiEvent, lambdaContext } from '../support/api-events.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';
import { setDynamoTestEnv } from '../support/test-env.js';

// The documented examples are what the real handlers answer: every request example runs, in
// document order, through its handler on empty tables, and the answer must equal the
// documented response example exactly and match the document's schema.
const doc = buildOpenApiDocument();
const apiKey = 'ak_examples';
const token = 'st_examples-token';
const auth = { 'x-service-api-key': apiKey, 'x-service-auth-token': token };
let dynamo: TestDynamo;
const handlers: Partial<Record<OperationId, HttpHandler>> = {};

beforeAll(async () => {
  dynamo = await startTestDynamo({ tables: 'own' });
  setDynamoTestEnv(dynamo);
  await dynamo.doc.send(
    new PutCommand({
      TableName: dynamo.tables.credentials,
      Item: { apiKey, tokenHash: hashToken(token), organizationIds: ['acme'], createdAt: new Date().toISOString() },
    }),
  );
  handlers.setConfig = (await import('#functions/set-config.js')).handler;
  handlers.getConfig = (await import('#functions/get-config.js')).handler;
});
afterAll(async () => {
  await dynamo?.close();
});

const call = async (path: string, body: unknown, headers: Record<string, string> = auth) => {
  const operation = OPERATIONS.find((candidate) => candidate.path === path);
  const handler = operation && handlers[operation.operationId];
  if (!handler) throw new Error(`No handler loaded for ${path}`);
  const response = await handler(apiEvent(path, { headers, body }), lambdaContext());
  return { statusCode: response.statusCode ?? 0, body: JSON.parse(response.body ?? 'null') };
};

const examplesOf = (content: OpenApiDocument): [string, unknown][] =>
  Object.entries(content.examples ?? {}).map(([name, example]) => [name, (example as OpenApiDocument).value]);

const runnable = OPERATIONS.filter(
  (operation) => operation.operationId === 'setConfig' || operation.operationId === 'getConfig',
);

describe.each(runnable.map((operation) => [operation.operationId, operation.path] as const))('%s', (_name, path) => {
  const post = doc.paths[path].post as OpenApiDocument;
  const requests = examplesOf(post.requestBody.content['application/json']);
  const successes = Object.fromEntries(examplesOf(post.responses['200'].content['application/json']));

  test.each(requests)('request example %s answers its documented response', async (name, body) => {
    const answer = await call(path, body);
    expect(answer).toEqual({ statusCode: 200, body: successes[name] });
    assertMatchesOpenApi(path, answer.statusCode, answer.body);
  });

  test('the documented 400, 401 and 403 answers are the real ones', async () => {
    const invalid = examplesOf(post.responses['400'].content['application/json']);
    const operation = OPERATIONS.find((candidate) => candidate.path === path);
    expect(invalid.length).toBe(1);
    const badRequest = await call(path, { data: operation?.invalidExample.value });
    expect(badRequest).toEqual({ statusCode: 400, body: invalid[0]?.[1] });

    const unauthenticated = await call(path, requests[0]?.[1], { 'x-service-api-key': apiKey });
    expect(unauthenticated.body).toEqual(examplesOf(post.responses['401'].content['application/json'])[0]?.[1]);
    assertMatchesOpenApi(path, unauthenticated.statusCode, unauthenticated.body);

    const otherOrganization = structuredClone(requests[0]?.[1]) as { data: { organizationId: string } };
    otherOrganization.data.organizationId = 'globex';
    const denied = await call(path, otherOrganization);
    expect(denied.body).toEqual(examplesOf(post.responses['403'].content['application/json'])[0]?.[1]);
    assertMatchesOpenApi(path, denied.statusCode, denied.body);
  });
});

test('the unknown-route answer matches the document', async () => {
  const { handler } = await import('#functions/not-found.js');
  const response = await handler(apiEvent('/v2/unknown'), lambdaContext() as never);
  expect(response.statusCode).toBe(404);
  const body = JSON.parse(response.body ?? 'null');
  expect(body).toEqual(doc.components.responses.UnknownRoute.content['application/json'].example);
  assertMatchesOpenApi('/v2/unknown', 404, body);
});

test.each([
  ['a path outside the API', '/u/AbCdEf.token-like', 'GET'],
  ['a path of 600 characters', `/v2/${'x'.repeat(600)}`, 'POST'],
])('%s answers 404 without repeating the path', async (_case, path, method) => {
  const { handler } = await import('#functions/not-found.js');
  const response = await handler(apiEvent(path, { method }), lambdaContext() as never);
  expect(response.statusCode).toBe(404);
  expect(JSON.parse(response.body ?? 'null')).toEqual({
    error: { status: 'NOT_FOUND', message: `No route for ${method} on this path.` },
  });
});
