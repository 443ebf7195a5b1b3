import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from '@jest/globals';
import { MAX_ANSWER_BYTES, sendTo } from '#shared/webhooks/send.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

const listen = async (handler: Parameters<typeof createServer>[1]) => {
  server = createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://receiver.test:${port}/in?x=1`), address: '127.0.0.1', family: 4 };
};

describe('sending a delivery', () => {
  test('connects to the given address, names the host, posts the body', async () => {
    let seen: { host?: string; url?: string; body: string } = { body: '' };
    const target = await listen((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        seen = { host: request.headers.host, url: request.url, body };
        response.writeHead(200).end('ok');
      });
    });
    expect(await sendTo(target, { 'content-type': 'application/json' }, '{"a":1}')).toMatchObject({ statusCode: 200 });
    expect(seen).toEqual({ host: target.url.host, url: '/in?x=1', body: '{"a":1}' });
  });

  test('no answer within the limit is no answer', async () => {
    const target = await listen(() => {});
    expect(await sendTo(target, {}, '{}', 200)).toMatchObject({ statusCode: null });
  });

  test('an endless answer is read to 64 KB, then the connection is dropped', async () => {
    let sent = 0;
    let closed = false;
    const target = await listen((_request, response) => {
      response.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 120);
      const pump = () => {
        while (!closed && sent < 100 * MAX_ANSWER_BYTES && response.write(chunk)) sent += chunk.length;
        if (!closed && sent < 100 * MAX_ANSWER_BYTES) response.once('drain', pump);
      };
      response.on('close', () => {
        closed = true;
      });
      pump();
    });
    expect(await sendTo(target, {}, '{}')).toMatchObject({ statusCode: 200 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(true);
    expect(sent).toBeLessThan(100 * MAX_ANSWER_BYTES);
  });

  test('a refused connection is no answer', async () => {
    const target = await listen(() => {});
    const { port } = target.url;
    server?.close();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await sendTo({ ...target, url: new URL(`http://receiver.test:${port}/`) }, {}, '{}')).toMatchObject({
      statusCode: null,
    });
  });
});
