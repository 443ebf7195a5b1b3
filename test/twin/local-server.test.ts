import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { InFlight } from '#local/in-flight.js';
import { type ApiServer, createApiServer, MAX_REQUEST_BYTES } from '#local/server.js';
import { rawRequest } from '../support/local-service.js';

// The API Gateway twin alone, with recording handlers: what a function receives for a
// request, and what the client receives for what the function returns.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let api: ApiServer;
let baseUrl: string;
const inFlight = new InFlight();
const seen: { event: APIGatewayProxyEventV2; context: Context; remaining?: number }[] = [];
const logs: string[] = [];
let answer: (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyResultV2>;

const recording = (name: string) => ({
  name,
  timeoutMs: 10_000,
  memoryMb: 512,
  handler: async (event: APIGatewayProxyEventV2, context: Context) => {
    seen.push({ event, context, remaining: context.getRemainingTimeInMillis?.() });
    return answer(event);
  },
});

beforeAll(async () => {
  api = createApiServer({
    routes: new Map([['/v2/things/do', recording('DoThings')]]),
    fallback: recording('NotFound'),
    inFlight,
    log: (line) => logs.push(line),
  });
  baseUrl = await api.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await api?.close();
});
beforeEach(() => {
  seen.length = 0;
  logs.length = 0;
  answer = async () => ({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' });
});

test('a request counts as in flight until it is answered (the stream twin waits for it)', async () => {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  answer = async () => {
    await held;
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
  };
  const response = rawRequest(`${baseUrl}/v2/things/do`, { body: '{"data":{}}' });
  while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(inFlight.size).toBe(1);
  const quiet = inFlight.quiet(10_000).then(() => 'quiet');
  expect(await Promise.race([quiet, new Promise((resolve) => setTimeout(() => resolve('busy'), 100))])).toBe('busy');
  release();
  expect((await response).status).toBe(200);
  expect(await quiet).toBe('quiet');
  expect(inFlight.size).toBe(0);
});

describe('request to event', () => {
  test('a routed request becomes an HTTP API payload 2.0 event', async () => {
    const response = await rawRequest(`${baseUrl}/v2/things/do?b=2&a=1&a=3`, {
      headers: [
        ['Content-Type', 'application/json'],
        ['X-Service-Api-Key', 'ak_1'],
        ['X-Repeated', 'one'],
        ['x-repeated', 'two'],
        ['Cookie', 'c1=v1; c2=v2'],
        ['User-Agent', 'probe/1'],
      ],
      body: '{"data":{"x":"ü"}}',
    });
    expect(response.status).toBe(200);
    const [{ event, context, remaining } = {} as never] = seen;
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'ANY /v2/things/do',
      rawPath: '/v2/things/do',
      rawQueryString: 'b=2&a=1&a=3',
      queryStringParameters: { a: '1,3', b: '2' },
      cookies: ['c1=v1', 'c2=v2'],
      body: '{"data":{"x":"ü"}}',
      isBase64Encoded: false,
      requestContext: {
        accountId: '000000000000',
        stage: '$default',
        routeKey: 'ANY /v2/things/do',
        http: {
          method: 'POST',
          path: '/v2/things/do',
          protocol: 'HTTP/1.1',
          sourceIp: '127.0.0.1',
          userAgent: 'probe/1',
        },
      },
    });
    // Lower-cased names, repeated headers joined with commas, cookies moved out.
    expect(event.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-api-key': 'ak_1',
      'x-repeated': 'one,two',
    });
    expect(Object.keys(event.headers).every((name) => name === name.toLowerCase())).toBe(true);
    expect(event.headers.cookie).toBeUndefined();
    expect(event.requestContext.requestId).toMatch(UUID);
    expect(response.headers['apigw-requestid']).toBe(event.requestContext.requestId);
    expect(event.requestContext.time).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
    expect(Math.abs(event.requestContext.timeEpoch - Date.now())).toBeLessThan(5_000);
    expect(context.awsRequestId).toMatch(UUID);
    expect(context.functionName).toBe('DoThings');
    expect(remaining).toBeGreaterThan(9_000);
    expect(remaining).toBeLessThanOrEqual(10_000);
  });

  test('each invocation gets a fresh request id and context', async () => {
    await fetch(`${baseUrl}/v2/things/do`, { method: 'POST', body: '{}' });
    await fetch(`${baseUrl}/v2/things/do`, { method: 'POST', body: '{}' });
    const [first, second] = seen;
    expect(first?.context.awsRequestId).not.toBe(second?.context.awsRequestId);
    expect(first?.event.requestContext.requestId).not.toBe(second?.event.requestContext.requestId);
  });

  test('routes match the exact path for any method; anything else goes to the $default function', async () => {
    await fetch(`${baseUrl}/v2/things/do`, { method: 'GET' });
    await fetch(`${baseUrl}/v2/things/do/`, { method: 'POST', body: '{}' });
    await fetch(`${baseUrl}/other%20path?q=1`, { method: 'DELETE' });
    expect(seen.map((s) => [s.context.functionName, s.event.routeKey, s.event.requestContext.http.method])).toEqual([
      ['DoThings', 'ANY /v2/things/do', 'GET'],
      ['NotFound', '$default', 'POST'],
      ['NotFound', '$default', 'DELETE'],
    ]);
    expect(seen[0]?.event.body).toBeUndefined();
    expect(seen[2]?.event.rawPath).toBe('/other%20path');
    expect(seen[2]?.event.requestContext.http.path).toBe('/other path');
  });
});

describe('result to response', () => {
  test('status, headers and body of a structured result are sent as they are', async () => {
    answer = async () => ({
      statusCode: 409,
      headers: { 'Content-Type': 'application/json', 'x-extra': 'y' },
      body: '{"a":1}',
    });
    const response = await rawRequest(`${baseUrl}/v2/things/do`, { body: '{}' });
    expect(response.status).toBe(409);
    expect(response.headers).toMatchObject({ 'content-type': 'application/json', 'x-extra': 'y' });
    expect(response.text).toBe('{"a":1}');
  });

  test('a result without statusCode is inferred as a 200 JSON body, as API Gateway does', async () => {
    answer = async () => ({ hello: 'world' }) as unknown as APIGatewayProxyResultV2;
    const response = await rawRequest(`${baseUrl}/v2/things/do`, { body: '{}' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(JSON.parse(response.text)).toEqual({ hello: 'world' });
  });

  test('a crash of the function answers 500 INTERNAL in the envelope with a request id and no internals', async () => {
    answer = async () => {
      throw new Error('secret internals at /var/task/index.js');
    };
    const response = await rawRequest(`${baseUrl}/v2/things/do`, { body: '{}' });
    expect(response.status).toBe(500);
    expect(response.headers['content-type']).toBe('application/json');
    const body = JSON.parse(response.text);
    expect(body).toEqual({
      error: { message: 'Internal error.', status: 'INTERNAL', details: { requestId: expect.any(String) } },
    });
    expect(body.error.details.requestId).toBe(seen[0]?.event.requestContext.requestId);
    expect(response.text).not.toContain('secret');
  });

  test(`a body over ${MAX_REQUEST_BYTES} bytes is answered 413 as API Gateway does, before any function runs`, async () => {
    const response = await rawRequest(`${baseUrl}/v2/things/do`, {
      headers: [['content-type', 'application/json']],
      body: Buffer.alloc(MAX_REQUEST_BYTES + 1, 'a'),
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.text)).toEqual({ message: 'Request Entity Too Large' });
    expect(seen).toHaveLength(0);
  });

  test('a client that hangs up mid-body is logged, reaches no function, and the server carries on', async () => {
    const { port } = new URL(baseUrl);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST /v2/things/do HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-length: 100\r\n\r\n{"partial":`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logs).toEqual(['POST /v2/things/do aborted by the client']);
    expect(seen).toHaveLength(0);
    expect((await fetch(`${baseUrl}/v2/things/do`, { method: 'POST', body: '{}' })).status).toBe(200);
  });

  test('one log line per request: method, path, status and time, never headers or query', async () => {
    await rawRequest(`${baseUrl}/v2/things/do?token=q`, {
      headers: [['x-service-auth-token', 'st_secret-token']],
      body: '{}',
    });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^POST \/v2\/things\/do 200 \d+ms$/);
  });
});

test('headers over 16 KiB are answered 431 in API Gateway shape before any function runs; 15 KiB pass', async () => {
  const big = await rawRequest(`${baseUrl}/v2/things/do`, { body: '{}', headers: [['x-big', 'a'.repeat(17 * 1024)]] });
  expect({ status: big.status, text: big.text }).toEqual({
    status: 431,
    text: '{"message":"Request Header Fields Too Large"}',
  });
  expect(seen).toHaveLength(0);
  const fits = await rawRequest(`${baseUrl}/v2/things/do`, { body: '{}', headers: [['x-big', 'a'.repeat(15 * 1024)]] });
  expect(fits.status).toBe(200);
});

describe('slow clients', () => {
  // The limits, shortened: the server's own are 10 s for the headers and 30 s for the request.
  const HEADERS_MS = 1_000;
  const REQUEST_MS = 2_000;
  let slow: ApiServer;
  let port: number;

  beforeAll(async () => {
    slow = createApiServer({
      routes: new Map([['/v2/things/do', recording('DoThings')]]),
      fallback: recording('NotFound'),
      headersTimeoutMs: HEADERS_MS,
      requestTimeoutMs: REQUEST_MS,
      log: (line) => logs.push(line),
    });
    port = Number(new URL(await slow.listen(0, '127.0.0.1')).port);
  });
  afterAll(async () => {
    await slow?.close();
  });

  /** Sends `head`, then `drip` every 200 ms until the server closes the connection; what came back. */
  const trickle = (head: string, drip: string) =>
    new Promise<string>((resolve) => {
      let received = '';
      const socket = connect(port, '127.0.0.1');
      let timer: NodeJS.Timeout | undefined;
      socket.on('connect', () => {
        socket.write(head);
        timer = setInterval(() => socket.writable && socket.write(drip), 200);
      });
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString();
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        clearInterval(timer);
        resolve(received);
      });
    });

  const timeoutAnswer = (received: string) => ({
    status: received.split('\r\n')[0],
    closes: /\r\nconnection: close\r\n/i.test(received),
    body: JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)),
  });

  test('a body trickled byte by byte is cut: 408 in API Gateway shape, the connection closed, no function run', async () => {
    const received = await trickle(
      `POST /v2/things/do HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-length: 1000\r\n\r\n`,
      'a',
    );
    expect(timeoutAnswer(received)).toEqual({
      status: 'HTTP/1.1 408 Request Timeout',
      closes: true,
      body: { message: 'Request Timeout' },
    });
    expect(seen).toHaveLength(0);
    // Logged once the server's side of the connection is gone: a moment after the client's.
    for (let wait = 0; logs.length === 0 && wait < 50; wait++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(logs).toEqual([`POST /v2/things/do 408 body not received within ${REQUEST_MS} ms`]);
  }, 20_000);

  test('headers trickled line by line are cut the same way', async () => {
    const received = await trickle(`POST /v2/things/do HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n`, 'x-slow: 1\r\n');
    expect(timeoutAnswer(received)).toEqual({
      status: 'HTTP/1.1 408 Request Timeout',
      closes: true,
      body: { message: 'Request Timeout' },
    });
    expect(seen).toHaveLength(0);
    expect(logs).toEqual([`408 request headers not received within ${HEADERS_MS} ms`]);
  }, 20_000);

  test('the limit is on receiving the request: a function that runs longer is still answered', async () => {
    answer = async () => {
      await new Promise((resolve) => setTimeout(resolve, REQUEST_MS + 1_500));
      return { statusCode: 200, body: '{"ok":true}' };
    };
    const response = await rawRequest(`http://127.0.0.1:${port}/v2/things/do`, { body: '{}' });
    expect({ status: response.status, text: response.text }).toEqual({ status: 200, text: '{"ok":true}' });
  }, 20_000);

  test('after all that, the server answers as before', async () => {
    expect((await rawRequest(`http://127.0.0.1:${port}/v2/things/do`, { body: '{}' })).status).toBe(200);
  });
});

describe('stopping', () => {
  // A stop comes while requests run (Ctrl+C during a large config/set): as on AWS, a function
  // already invoked runs to its answer before the twin stops DynamoDB Local under it.
  const stoppable = async (timeoutMs = 10_000, drainMs?: number) => {
    const server = createApiServer({
      routes: new Map([['/v2/things/do', { ...recording('DoThings'), timeoutMs }]]),
      fallback: { ...recording('NotFound'), timeoutMs },
      ...(drainMs === undefined ? {} : { drainMs }),
      log: (line) => logs.push(line),
    });
    return { server, url: `${await server.listen(0, '127.0.0.1')}/v2/things/do` };
  };
  test('a request under way is answered before close resolves, however long its function runs; no new connection is taken', async () => {
    const { server, url } = await stoppable();
    const order: string[] = [];
    answer = async () => {
      await new Promise((resolve) => setTimeout(resolve, 3_000)); // longer than the grace any other server of the twin gets
      order.push('function answered');
      return { statusCode: 200, body: '{"ok":true}' };
    };
    const response = rawRequest(url, { body: '{}' });
    while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const closed = server.close().then(() => order.push('closed'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(rawRequest(url, { body: '{}' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect({ status: (await response).status, text: (await response).text }).toEqual({
      status: 200,
      text: '{"ok":true}',
    });
    await closed;
    expect(order).toEqual(['function answered', 'closed']);
    // Answered during the stop: the connection is not kept for another request.
    expect((await response).headers.connection).toBe('close');
  }, 20_000);

  test('a connection that has sent no request (a preconnect) does not hold the stop', async () => {
    const { server, url } = await stoppable();
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    const gone = new Promise((resolve) => socket.on('close', resolve));
    socket.on('error', () => {});
    await new Promise((resolve) => socket.on('connect', resolve));
    const started = performance.now();
    await server.close();
    await gone;
    expect(performance.now() - started).toBeLessThan(5_000); // the functions' timeout is 10 s
  }, 20_000);

  test('drainMs bounds the wait (npm run dev: tsx watch kills the twin 5 s after its signal)', async () => {
    const { server, url } = await stoppable(10_000, 500);
    answer = () => new Promise((resolve) => setTimeout(() => resolve({ statusCode: 200, body: '{}' }), 8_000));
    const response = rawRequest(url, { body: '{}' }).catch((error: NodeJS.ErrnoException) => error.code);
    while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const started = performance.now();
    await server.close();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await response).toBe('ECONNRESET');
  }, 20_000);

  test('a body still on its way is not waited for: cut at once, no function run', async () => {
    const { server, url } = await stoppable();
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    const gone = new Promise((resolve) => socket.on('close', resolve));
    socket.on('error', () => {});
    await new Promise((resolve) => socket.on('connect', resolve));
    socket.write(`POST /v2/things/do HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-length: 1000\r\n\r\n{`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    await server.close();
    await gone;
    expect(performance.now() - started).toBeLessThan(5_000); // the function's timeout is 10 s
    expect(seen).toHaveLength(0);
    expect(logs).toEqual(['POST /v2/things/do cut: the server stopped before the body was sent']);
  }, 20_000);

  test("a function that never answers holds the stop no longer than the functions' timeout", async () => {
    const { server, url } = await stoppable(500);
    answer = () => new Promise(() => {});
    const response = rawRequest(url, { body: '{}' }).catch((error: NodeJS.ErrnoException) => error.code);
    while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const started = performance.now();
    await server.close();
    expect(performance.now() - started).toBeLessThan(5_000); // 500 ms and a margin of 1 s
    expect(await response).toBe('ECONNRESET');
  }, 20_000);
});
