import { createSocket } from 'node:dgram';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Subsegment } from '#shared/platform/xray.js';
import { apiEvent, lambdaContext, parseResponse } from '../support/api-events.js';
import { authHeaders, credentialRecord } from '../support/credentials.js';
import { setUnitTestEnv } from '../support/test-env.js';

// What an operator sees in X-Ray, as the daemon receives it: a traced function in Lambda sends
// its handler's subsegment and one per AWS call, over UDP, parented on the segment Lambda opened.
// Here a UDP socket stands in for the daemon and an HTTP server for DynamoDB.

const ROOT = '1-5759e988-bd862e3fe1be46a994272793';
const PARENT = '53995c3f42cd8ad8';

const daemon = createSocket('udp4');
const documents: Subsegment[] = [];
daemon.on('message', (message) => {
  const [header, body] = message.toString('utf8').split('\n');
  expect(JSON.parse(header as string)).toEqual({ format: 'json', version: 1 });
  documents.push(JSON.parse(body as string) as Subsegment);
});

/** DynamoDB: the credential on GetItem, a ValidationException for a key it refuses. */
const requests: { target: string; headers: IncomingHttpHeaders; body: string }[] = [];
const dynamo: Server = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', () => {
    const target = String(request.headers['x-amz-target']);
    requests.push({ target, headers: request.headers, body });
    response.setHeader('content-type', 'application/x-amz-json-1.0');
    response.setHeader('x-amzn-requestid', `req-${requests.length}`);
    if (body.includes('refused')) {
      response.statusCode = 400;
      response.end(JSON.stringify({ __type: 'com.amazon.coral.validate#ValidationException', message: 'refused' }));
      return;
    }
    const record = credentialRecord({ apiKey: 'ak_test', organizationIds: '*' });
    const item = Object.fromEntries(
      Object.entries(record).map(([key, value]) => [key, typeof value === 'string' ? { S: value } : { S: '*' }]),
    );
    response.end(JSON.stringify(target.endsWith('GetItem') ? { Item: item } : { Responses: {} }));
  });
});

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

beforeAll(async () => {
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  setUnitTestEnv();
  process.env.AWS_EXECUTION_ENV = 'AWS_Lambda_nodejs24.x';
  process.env.AWS_XRAY_DAEMON_ADDRESS = `127.0.0.1:${daemon.address().port}`;
  process.env.AWS_ENDPOINT_URL_DYNAMODB = `http://127.0.0.1:${await listen(dynamo)}`;
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});

afterAll(() => {
  daemon.close();
  dynamo.close();
});

const getConfig = async (organizationId = 'acme') => {
  const { handler } = await import('#functions/get-config.js');
  return parseResponse(
    await handler(
      apiEvent('/v2/notifications/config/get', {
        headers: authHeaders(),
        body: { data: { organizationId, userId: 'alice' } },
      }),
      lambdaContext(),
    ),
  );
};

test('a sampled invocation: the handler subsegment under Lambda, each AWS call under it, the trace header on the call', async () => {
  process.env._X_AMZN_TRACE_ID = `Root=${ROOT};Parent=${PARENT};Sampled=1`;
  expect((await getConfig()).statusCode).toBe(200);
  await settle();

  const handler = documents.find((d) => d.name === '## index.handler');
  expect(handler).toMatchObject({
    type: 'subsegment',
    trace_id: ROOT,
    parent_id: PARENT,
    annotations: { ColdStart: true, Service: 'notification-preferences' },
  });
  expect(handler?.fault).toBeUndefined();
  const calls = documents.filter((d) => d.namespace === 'aws');
  // The credential, then the entries and the organization's policy in one batched read.
  expect(calls.map((d) => d.aws?.operation).sort()).toEqual(['BatchGetItem', 'GetItem']);
  for (const call of calls) {
    expect(call).toMatchObject({
      name: 'DynamoDB',
      trace_id: ROOT,
      parent_id: handler?.id,
      http: { response: { status: 200 } },
    });
    expect(call.start_time).toBeGreaterThanOrEqual(handler?.start_time ?? Infinity);
    expect(call.end_time).toBeLessThanOrEqual(handler?.end_time ?? 0);
  }
  expect(calls[0]?.aws).toMatchObject({ table_name: 'credentials-table', request_id: 'req-1', retries: 0 });
  expect(calls[1]?.aws).toMatchObject({ table_names: ['config-table'] });
  // DynamoDB's own segment joins the trace under the call's subsegment.
  expect(requests.map((r) => r.headers['x-amzn-trace-id'])).toEqual(
    calls.map((call) => `Root=${ROOT};Parent=${call.id};Sampled=1`),
  );
});

test('an unsampled invocation sends nothing and adds no trace header', async () => {
  documents.length = 0;
  requests.length = 0;
  process.env._X_AMZN_TRACE_ID = `Root=1-5759e988-00000000000000000000000a;Parent=${PARENT};Sampled=0`;
  expect((await getConfig()).statusCode).toBe(200);
  await settle();
  expect(documents).toEqual([]);
  expect(requests.every((r) => r.headers['x-amzn-trace-id'] === undefined)).toBe(true);
});

test('a call DynamoDB refuses is an error subsegment with its exception; the next invocation is warm', async () => {
  documents.length = 0;
  process.env._X_AMZN_TRACE_ID = `Root=1-5759e988-00000000000000000000000b;Parent=${PARENT};Sampled=1`;
  // A refused key fails the config read: the route answers 500 INTERNAL, the call is an error.
  const response = await getConfig('refused');
  expect(response.statusCode).toBe(500);
  await settle();
  const failed = documents.find((d) => d.aws?.operation === 'BatchGetItem');
  expect(failed).toMatchObject({
    error: true,
    http: { response: { status: 400 } },
    cause: { exceptions: [{ type: 'ValidationException', message: 'refused' }] },
  });
  expect(failed?.fault).toBeUndefined();
  expect(documents.find((d) => d.name === '## index.handler')?.annotations?.ColdStart).toBe(false);
});
