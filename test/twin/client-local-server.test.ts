import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import type { Context, SQSEvent } from 'aws-lambda';
import { createClient, type ServiceClient, ServiceError } from '#client/index.js';
import { buildOpenApiDocument, type OpenApiDocument } from '#tools/openapi/document.js';
import { OPERATIONS } from '#tools/openapi/operations.js';
import { validateAgainstOpenApi } from '#tools/openapi/validate.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// The typed client against the real local server (what `npm start` runs): the documented
// examples, played in document order, get exactly the documented answers, and every answer
// the server gives in this file, success or error, matches the OpenAPI document.
const doc = buildOpenApiDocument();
const post = (path: string) => doc.paths[path].post as OpenApiDocument;
const exampleValues = (content: OpenApiDocument): Record<string, OpenApiDocument> =>
  Object.fromEntries(
    Object.entries(content.examples ?? {}).map(([name, example]) => [name, (example as OpenApiDocument).value]),
  );
const pathOf = (operationId: string) =>
  OPERATIONS.find((operation) => operation.operationId === operationId)?.path as string;

// Migrations wait at this gate, so that one can be seen pending and a conflicting one refused.
let openGate: () => void = () => {};
const gate = new Promise<void>((resolve) => {
  openGate = resolve;
});
const gatedConsumer = async (event: SQSEvent, context: Context) => {
  await gate;
  // Imported once the runtime has set the functions' environment.
  const { handler } = await import('#functions/migration-consumer.js');
  return handler(event, context as never);
};

let service: LocalService;
let client: ServiceClient;
const answers: { path: string; status: number; text: string }[] = [];

/** fetch that records every answer, so that each one is checked against the document. */
const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  answers.push({ path: new URL(String(input)).pathname, status: response.status, text: await response.clone().text() });
  return response;
};

beforeAll(async () => {
  service = await startLocalService({ consumer: gatedConsumer });
  client = createClient({
    baseUrl: service.baseUrl,
    apiKey: service.apiKey,
    token: service.token,
    fetch: recordingFetch,
  });
});
afterAll(async () => {
  openGate();
  await service?.close();
});
afterEach(() => {
  const mismatches = answers
    .map(({ path, status, text }) => ({ path, status, text, check: validateAgainstOpenApi(path, status, text) }))
    .filter(({ check }) => !check.valid);
  answers.length = 0;
  expect(mismatches).toEqual([]);
});

/** A raw call through the test helper, recorded like the client's. */
const raw = async (path: string, data?: unknown, options?: Parameters<LocalService['call']>[2]) => {
  const response = await service.call(path, data, options);
  answers.push({ path, status: response.status, text: response.text });
  return response;
};

const caught = async (promise: Promise<unknown>) =>
  promise.then(
    () => new Error('expected a rejection'),
    (error) => error,
  );

describe('documented examples, in order', () => {
  test.each([
    ['setConfig', 'setConfig'],
    ['getConfig', 'getConfig'],
    ['setSchedule', 'setSchedule'],
    ['getSchedule', 'getSchedule'],
    ['resolveConfig', 'resolveConfig'],
    ['resetConfig', 'resetConfig'],
  ] as const)('%s request examples answer the documented data', async (operationId, method) => {
    const path = pathOf(operationId);
    const requests = exampleValues(post(path).requestBody.content['application/json']);
    const successes = exampleValues(post(path).responses['200'].content['application/json']);
    for (const [name, { data }] of Object.entries(requests)) {
      expect({ name, data: await client[method](data) }).toEqual({ name, data: successes[name]?.result.data });
    }
  });

  test('a migration starts pending, refuses a conflicting one, then completes as documented', async () => {
    const migratePath = pathOf('migrateDocument');
    const statusPath = pathOf('getMigrationStatus');
    const [start] = Object.values(exampleValues(post(migratePath).requestBody.content['application/json']));
    const { migrationId } = await client.migrateDocument(start?.data);
    expect(migrationId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(await client.migrateDocument(start?.data)).toEqual({ migrationId });

    const pending = await client.getMigrationStatus({ organizationId: 'acme', migrationId });
    expect(pending).toMatchObject({ status: 'pending', moved: 0, skipped: 0 });

    const conflict = await raw(migratePath, { organizationId: 'acme', documentId: 'doc-1', newDocumentId: 'doc-1-v3' });
    expect(conflict.status).toBe(409);
    // As documented, with the id of the migration in the way (this run's).
    const documentedConflict = exampleValues(post(migratePath).responses['409'].content['application/json']).conflict;
    expect(conflict.body).toEqual({
      error: { ...documentedConflict?.error, details: { migrationId } },
    });

    openGate();
    let status = pending;
    for (
      let attempt = 0;
      attempt < 200 && (status.status === 'pending' || status.status === 'in_progress');
      attempt++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = await client.getMigrationStatus({ organizationId: 'acme', migrationId });
    }
    const [documented] = Object.values(exampleValues(post(statusPath).responses['200'].content['application/json']));
    const timestamps = { createdAt: status.createdAt, updatedAt: status.updatedAt, completedAt: status.completedAt };
    expect(status).toEqual({ ...documented?.result.data, migrationId, ...timestamps });
    expect(Date.parse(status.completedAt as string)).toBeGreaterThanOrEqual(Date.parse(status.createdAt));
  });
});

describe('errors through the client', () => {
  test.each(OPERATIONS.map((operation) => [operation.operationId, operation] as const))(
    '%s: the invalid example raises the documented INVALID_ARGUMENT',
    async (_name, operation) => {
      const documented = exampleValues(
        post(operation.path).responses['400'].content['application/json'],
      ).schemaViolation;
      const method = client[operation.operationId] as (data: unknown) => Promise<unknown>;
      const error = await caught(method(operation.invalidExample.value));
      expect(error).toBeInstanceOf(ServiceError);
      expect(error).toMatchObject({ httpStatus: 400, ...documented?.error });
    },
  );

  test('an unknown migration is NOT_FOUND, as documented', async () => {
    const path = pathOf('getMigrationStatus');
    const documented = exampleValues(post(path).responses['404'].content['application/json']).unknown;
    const error = await caught(client.getMigrationStatus({ organizationId: 'acme', migrationId: 'no-such-migration' }));
    expect(error).toMatchObject({ name: 'ServiceError', httpStatus: 404, ...documented?.error });
  });

  test('a wrong token is UNAUTHENTICATED', async () => {
    const intruder = createClient({
      baseUrl: service.baseUrl,
      apiKey: service.apiKey,
      token: 'st_wrong',
      fetch: recordingFetch,
    });
    const error = await caught(intruder.getConfig({ organizationId: 'acme', userId: 'alice' }));
    expect(error).toMatchObject({ name: 'ServiceError', status: 'UNAUTHENTICATED', httpStatus: 401 });
  });

  test('a server that is not there is a TransportError', async () => {
    const nowhere = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', token: 't' });
    expect(await caught(nowhere.getConfig({ organizationId: 'acme', userId: 'alice' }))).toMatchObject({
      name: 'TransportError',
      kind: 'network',
    });
  });
});

describe('answers outside the client match the document too', () => {
  test('unknown route, wrong method, wrong content type, bad envelope', async () => {
    expect((await raw('/v2/unknown', {})).status).toBe(404);
    expect((await raw(pathOf('getConfig'), undefined, { method: 'PUT', rawBody: '{}' })).status).toBe(400);
    expect((await raw(pathOf('getConfig'), {}, { headers: { 'content-type': 'text/plain' } })).status).toBe(400);
    expect((await raw(pathOf('setConfig'), undefined, { rawBody: '{"data":{},"extra":1}' })).status).toBe(400);
    expect((await raw(pathOf('setConfig'), undefined, { rawBody: '{not json' })).status).toBe(400);
    expect((await raw(pathOf('setConfig'), {}, { headers: { 'x-service-api-key': undefined } })).status).toBe(401);
  });
});
