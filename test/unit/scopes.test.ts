import { basename } from 'node:path';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { handlerEntryOf, ROUTES } from '#service/routes.js';
import { SCOPES, type Scope } from '#shared/api/scopes.js';
import type { HttpHandler } from '#shared/edge/http-route.js';
import { logger } from '#shared/platform/logger.js';
import { apiEvent, lambdaContext, parseResponse } from '../support/api-events.js';
import { authHeaders, credentialRecord } from '../support/credentials.js';
import { setUnitTestEnv } from '../support/test-env.js';

// A credential's scopes narrow what it may call (contract section 2): a dispatcher that only
// resolves cannot erase. Checked right after authentication, before anything of the body, so
// a credential outside its scope learns nothing of the route's rules and nothing is read.
setUnitTestEnv();
logger.setLogLevel('SILENT');
const ddb = mockClient(DynamoDBDocumentClient);
const handlers: Record<string, HttpHandler> = {};

beforeAll(async () => {
  for (const route of ROUTES) {
    handlers[route.operationId] = (
      (await import(`#functions/${basename(handlerEntryOf(route), '.ts')}.js`)) as { handler: HttpHandler }
    ).handler;
  }
});

let counter = 0;
/** A fresh credential per call (the authenticator caches by key) holding `scopes`. */
const callAs = async (operationId: string, scopes: Scope[] | undefined) => {
  const apiKey = `ak_scopes_${++counter}`;
  ddb
    .on(GetCommand, { Key: { apiKey } })
    .resolves({ Item: credentialRecord({ apiKey, ...(scopes ? { scopes } : {}) }) });
  const route = ROUTES.find((r) => r.operationId === operationId);
  return parseResponse(
    await (handlers[operationId] as HttpHandler)(
      // An invalid body for every route (an unknown key): with the scope 400, without it 403 before the body is read.
      apiEvent(route?.path ?? '', {
        headers: authHeaders(apiKey),
        body: { data: { organizationId: 'org-1', notAField: true } },
      }),
      lambdaContext(),
    ),
  );
};

beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand).resolves({});
});

describe.each(ROUTES.map((route) => [route.operationId, route.scope] as const))(
  '%s needs %s',
  (operationId, needed) => {
    test('a credential without the scope: 403 naming it, before the body is checked', async () => {
      const others = SCOPES.filter((scope) => scope !== needed && scope !== 'admin');
      const response = await callAs(operationId, others);
      expect(response.statusCode).toBe(403);
      expect(response.body.error).toEqual({
        status: 'PERMISSION_DENIED',
        message: `The credential is not granted the scope "${needed}", which this route needs.`,
      });
    });

    test.each([
      ['the scope', [needed]],
      ['admin', ['admin']],
      ['no scopes listed (a credential from before scopes)', undefined],
    ] as const)('with %s: past the scope check (the invalid body is 400)', async (_name, scopes) => {
      const response = await callAs(operationId, scopes as Scope[] | undefined);
      expect(response.statusCode).toBe(400);
      expect(response.body.error?.status).toBe('INVALID_ARGUMENT');
    });
  },
);

test('every route declares one of the scopes, and each scope guards some route', () => {
  expect(ROUTES.every((route) => (SCOPES as readonly string[]).includes(route.scope))).toBe(true);
  expect(new Set(ROUTES.map((route) => route.scope))).toEqual(new Set(SCOPES));
});

test('the scope comes before the method and the content type (the documented order of checks)', async () => {
  const route = ROUTES.find((r) => r.operationId === 'setConfig');
  const apiKey = `ak_scopes_${++counter}`;
  ddb.on(GetCommand, { Key: { apiKey } }).resolves({ Item: credentialRecord({ apiKey, scopes: ['read'] }) });
  const send = (key: string) =>
    (handlers.setConfig as HttpHandler)(
      apiEvent(route?.path ?? '', { method: 'GET', headers: { ...authHeaders(key), 'content-type': 'text/plain' } }),
      lambdaContext(),
    );
  const refused = parseResponse(await send(apiKey));
  expect(refused.statusCode).toBe(403);
  expect(refused.body.error?.status).toBe('PERMISSION_DENIED');
  // With the scope, the method is the first thing wrong.
  const writer = `ak_scopes_${++counter}`;
  ddb
    .on(GetCommand, { Key: { apiKey: writer } })
    .resolves({ Item: credentialRecord({ apiKey: writer, scopes: ['write'] }) });
  const wrongMethod = parseResponse(await send(writer));
  expect(wrongMethod.statusCode).toBe(400);
  expect(wrongMethod.body.error?.message).toBe('Method GET is not allowed; use POST.');
});
