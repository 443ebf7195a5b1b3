import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type DynamoDbLocal, startDynamoDbLocal } from '#local/dynamodb-local.js';
import { nonLoopbackAddresses, tryConnection } from '../support/network.js';

// DynamoDB Local holds the credentials table and checks no signature: whoever reaches it can
// read every key hash and mint a credential. The twin's must answer loopback clients only, and
// no web page the developer opens.
let dynamo: DynamoDbLocal;
beforeAll(async () => {
  dynamo = await startDynamoDbLocal({});
}, 60_000);
afterAll(async () => {
  await dynamo?.close();
});

const SIGNED =
  'AWS4-HMAC-SHA256 Credential=local/20200101/local/dynamodb/aws4_request, SignedHeaders=host, Signature=0';

const listTables = (host: string) =>
  [
    'POST / HTTP/1.1',
    `Host: ${host.includes(':') ? `[${host}]` : host}:${dynamo.port}`,
    'Content-Type: application/x-amz-json-1.0',
    'X-Amz-Target: DynamoDB_20120810.ListTables',
    `Authorization: ${SIGNED}`,
    'Content-Length: 2',
    'Connection: close',
    '',
    '{}',
  ].join('\r\n');

const answersLoopback = async () => {
  const client = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    return Array.isArray((await client.send(new ListTablesCommand({}))).TableNames);
  } finally {
    client.destroy();
  }
};

describe('network', () => {
  const addresses = nonLoopbackAddresses();

  test('a loopback client is answered', async () => {
    expect(await answersLoopback()).toBe(true);
    const outcome = await tryConnection('127.0.0.1', dynamo.port, listTables('127.0.0.1'));
    expect(outcome.received).toMatch(/^HTTP\/1\.1 200 /);
  });

  (addresses.length > 0 ? test : test.skip)(
    addresses.length > 0
      ? `a connection to this machine's other addresses (${addresses.join(', ')}) gets no answer, and leaves it serving loopback`
      : 'a connection to another address of this machine gets no answer (skipped: this machine has no address but loopback)',
    async () => {
      for (const address of addresses) {
        // Several in a row: a server that accepted and then dropped each could stall its acceptor.
        for (let attempt = 0; attempt < 5; attempt++) {
          const outcome = await tryConnection(address, dynamo.port, listTables(address));
          expect({ address, received: outcome.received }).toEqual({ address, received: '' });
          expect(['refused', 'closed', 'reset', 'silent']).toContain(outcome.ended);
        }
      }
      expect(await answersLoopback()).toBe(true);
    },
    60_000,
  );
});

describe('browsers', () => {
  const request = (method: string, headers: Record<string, string>, body?: string) =>
    fetch(dynamo.endpoint, { method, headers, ...(body === undefined ? {} : { body }) });

  test('a request from a web page gets no Access-Control-Allow-Origin, so the page cannot read it', async () => {
    for (const origin of ['http://evil.example', 'null', '*', `http://127.0.0.1:${dynamo.port}`]) {
      const response = await request(
        'POST',
        {
          origin,
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          authorization: SIGNED,
        },
        '{}',
      );
      await response.arrayBuffer();
      expect({ origin, allowed: response.headers.get('access-control-allow-origin') }).toEqual({
        origin,
        allowed: null,
      });
    }
  });

  test('a preflight is not allowed: no Access-Control-Allow-Origin, so the browser never sends the request', async () => {
    const response = await request('OPTIONS', {
      origin: 'http://evil.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,x-amz-target',
    });
    await response.arrayBuffer();
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('a request naming another host (a page whose name was rebound to 127.0.0.1) is not served', async () => {
    const rebound = await tryConnection(
      '127.0.0.1',
      dynamo.port,
      listTables('127.0.0.1').replace(/^Host: .*$/m, `Host: evil.example:${dynamo.port}`),
    );
    expect(rebound.received).toMatch(/^HTTP\/1\.1 404 /);
    expect(rebound.received).not.toContain('TableNames');
    for (const host of ['127.0.0.1', 'localhost']) {
      const named = await tryConnection(
        '127.0.0.1',
        dynamo.port,
        listTables('127.0.0.1').replace(/^Host: .*$/m, `Host: ${host}:${dynamo.port}`),
      );
      expect({ host, answer: named.received.split('\r\n')[0] }).toEqual({ host, answer: 'HTTP/1.1 200 OK' });
    }
  });
});
