import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Stub {
  endpoint: string;
  /** Requests answered so far. */
  requests(): number;
  close(): Promise<void>;
}

const listen = async (answer: (body: string, request: IncomingMessage) => string): Promise<Stub> => {
  let count = 0;
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    count += 1;
    const body = answer(Buffer.concat(chunks).toString('utf8'), request);
    response.writeHead(200, {
      'content-type': 'application/x-amz-json-1.0',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/**
 * Answers `{}` to every DynamoDB call: what a client spends building, signing and sending a
 * call, with no storage work behind it (the alternatives' client CPU when the store has no
 * transactions).
 */
export const startEmptyDynamo = (): Promise<Stub> => listen(() => '{}');

/**
 * Answers every SQS SendMessage as SQS does (the SDK checks the body's MD5), for cold starts of
 * the functions that send: no queue behind it.
 */
export const startStubSqs = (): Promise<Stub> =>
  listen((body) => {
    const { MessageBody = '' } = JSON.parse(body || '{}') as { MessageBody?: string };
    return JSON.stringify({
      MessageId: randomUUID(),
      MD5OfMessageBody: createHash('md5').update(MessageBody).digest('hex'),
    });
  });

/** Answers every EventBridge PutEvents as accepted, one event id per entry: no bus behind it. */
export const startStubEventBridge = (): Promise<Stub> =>
  listen((body) => {
    const { Entries = [] } = JSON.parse(body || '{}') as { Entries?: unknown[] };
    return JSON.stringify({ FailedEntryCount: 0, Entries: Entries.map(() => ({ EventId: randomUUID() })) });
  });
