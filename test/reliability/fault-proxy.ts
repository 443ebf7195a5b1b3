import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What the proxy does to one DynamoDB call instead of (or on top of) forwarding it. */
export type Fault =
  | 'throttle' // 400 ProvisionedThroughputExceededException
  | 'internal' // 500 InternalServerError
  | 'unavailable' // 503 ServiceUnavailable
  | 'hang' // no answer at all (until the client gives up)
  | 'late' // forwarded at once (the call takes effect), answered only after `lateMs`
  | 'reset' // the connection is cut
  | 'unprocessed' // BatchGetItem: half the keys come back unprocessed
  | 'unprocessed-all'; // BatchGetItem: nothing is read, every key comes back unprocessed

export interface Call {
  /** The DynamoDB operation: GetItem, UpdateItem, BatchGetItem, ... */
  operation: string;
  /** The request body as sent (table name, keys, expressions). */
  body: Record<string, unknown>;
  /** How many calls of this operation came before (0 for the first). */
  index: number;
}

export type FaultPolicy = (call: Call) => Fault | undefined;

export interface FaultProxy {
  endpoint: string;
  policy: FaultPolicy;
  /** How long a `late` answer is held back (default 1.5 s: past the clients' 1 s socket timeout). */
  lateMs: number;
  /** Faults injected, by operation and kind ("GetItem:throttle"). */
  readonly injected: Map<string, number>;
  /** Calls seen, by operation. */
  readonly calls: Map<string, number>;
  reset(): void;
  close(): Promise<void>;
}

const DYNAMO_ERROR: Record<'throttle' | 'internal' | 'unavailable', { status: number; type: string }> = {
  throttle: { status: 400, type: 'ProvisionedThroughputExceededException' },
  internal: { status: 500, type: 'InternalServerError' },
  unavailable: { status: 503, type: 'ServiceUnavailable' },
};

const readAll = async (stream: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/**
 * A DynamoDB endpoint in front of a real one (DynamoDB Local) that injects faults on chosen calls:
 * the SDK's real retry logic, error parsing and timeouts are what get exercised.
 */
export const startFaultProxy = async (upstream: () => string): Promise<FaultProxy> => {
  const injected = new Map<string, number>();
  const calls = new Map<string, number>();
  const sockets = new Set<Socket>();
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

  const forward = (
    incoming: IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const target = new URL(upstream());
      const headers = { ...incoming.headers, host: target.host, 'content-length': String(body.length) };
      const outgoing = httpRequest(
        { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers },
        async (response) =>
          resolve({ status: response.statusCode ?? 500, headers: response.headers, body: await readAll(response) }),
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });

  const send = (response: ServerResponse, status: number, headers: IncomingMessage['headers'], body: Buffer) => {
    // The body is sent whole with its own length: the upstream's framing (DynamoDB Local answers
    // chunked) must not be forwarded beside it.
    const {
      'x-amz-crc32': _crc,
      'content-length': _length,
      'transfer-encoding': _encoding,
      connection: _c,
      ...rest
    } = headers;
    response.writeHead(status, { ...rest, 'content-length': String(body.length) });
    response.end(body);
  };

  const proxy: FaultProxy = {
    endpoint: '',
    policy: () => undefined,
    lateMs: 1_500,
    injected,
    calls,
    reset() {
      injected.clear();
      calls.clear();
      proxy.policy = () => undefined;
      proxy.lateMs = 1_500;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const server = createServer(async (incoming, response) => {
    try {
      const raw = await readAll(incoming);
      const operation = String(incoming.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
      const body = JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>;
      const index = calls.get(operation) ?? 0;
      bump(calls, operation);
      const fault = proxy.policy({ operation, body, index });
      if (fault) bump(injected, `${operation}:${fault}`);
      if (fault === 'hang') return; // the socket stays open and silent
      if (fault === 'reset') {
        incoming.socket.destroy();
        return;
      }
      if (fault === 'throttle' || fault === 'internal' || fault === 'unavailable') {
        const { status, type } = DYNAMO_ERROR[fault];
        const payload = Buffer.from(
          JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: `injected ${fault}` }),
        );
        send(response, status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'fault' }, payload);
        return;
      }
      if (fault === 'unprocessed-all' && operation === 'BatchGetItem') {
        const payload = Buffer.from(JSON.stringify({ Responses: {}, UnprocessedKeys: body.RequestItems }));
        send(response, 200, { 'content-type': 'application/x-amz-json-1.0' }, payload);
        return;
      }
      if (fault === 'unprocessed' && operation === 'BatchGetItem') {
        // The first half of each table's keys is read; the rest comes back unprocessed.
        const requestItems = body.RequestItems as Record<string, { Keys: unknown[] }>;
        const kept: Record<string, unknown> = {};
        const left: Record<string, unknown> = {};
        for (const [table, request] of Object.entries(requestItems)) {
          const half = Math.ceil(request.Keys.length / 2);
          kept[table] = { ...request, Keys: request.Keys.slice(0, half) };
          if (request.Keys.length > half) left[table] = { ...request, Keys: request.Keys.slice(half) };
        }
        const answer = await forward(incoming, Buffer.from(JSON.stringify({ ...body, RequestItems: kept })));
        const parsed = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
        const merged = Buffer.from(JSON.stringify({ ...parsed, UnprocessedKeys: left }));
        send(response, answer.status, answer.headers, merged);
        return;
      }
      const answer = await forward(incoming, raw);
      if (fault === 'late') await new Promise((resolve) => setTimeout(resolve, proxy.lateMs));
      if (incoming.socket.destroyed) return; // the client gave up meanwhile
      send(response, answer.status, answer.headers, answer.body);
    } catch (error) {
      if (!response.headersSent) response.writeHead(502);
      response.end(String(error));
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
};

/** Each distinct request (same operation and body) meets the given faults in turn, then passes. */
export const failFirst = (faults: Fault[], operations?: string[]): FaultPolicy => {
  const seen = new Map<string, number>();
  return ({ operation, body }) => {
    if (operations && !operations.includes(operation)) return undefined;
    const key = `${operation} ${JSON.stringify(body)}`;
    const count = seen.get(key) ?? 0;
    seen.set(key, count + 1);
    return faults[count];
  };
};
