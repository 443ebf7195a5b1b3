import { Agent, createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import { closeServer, listen } from './listen.js';

/**
 * DynamoDB Local answers a TransactWriteItems before its COMMIT has run: its
 * SQLiteDBAccess.commitTransaction queues the COMMIT on the SQLite thread and returns without
 * waiting for it (DynamoDB Local 1.25.1; every other write waits for its job). A crash in that
 * window loses a transaction the caller was told had succeeded: a config/set of up to 100
 * entries. Measured against a SIGKILL: the last acknowledged transaction lost in about half of
 * the kills.
 *
 * The functions reach DynamoDB Local through this proxy instead. A successful TransactWriteItems
 * is answered only after one more request of the same caller (its access key picks the database)
 * has been through the SQLite thread, which runs its jobs in order: by then the COMMIT has run.
 * Anything else passes through as it is.
 */

const TRANSACT_WRITE = 'DynamoDB_20120810.TransactWriteItems';

/** A request that runs one job on the SQLite thread and waits for it: a ListTables of one name. */
const barrierHeaders = (original: IncomingHttpHeaders): Record<string, string> => {
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.0',
    'x-amz-target': 'DynamoDB_20120810.ListTables',
  };
  for (const name of ['authorization', 'x-amz-date', 'x-amz-security-token', 'host']) {
    const value = original[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
};

const BARRIER_BODY = '{"Limit":1}';

/** DynamoDB's error answer: the SDK retries a 500, with the same ClientRequestToken for a transaction. */
const internalError = (message: string): string =>
  JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message });

export interface DynamoCommitBarrier {
  /** The endpoint for AWS_ENDPOINT_URL_DYNAMODB. */
  endpoint: string;
  close(): Promise<void>;
}

export const startDynamoCommitBarrier = async ({
  target,
  port = 0,
}: {
  /** DynamoDB Local's endpoint. */
  target: string;
  port?: number;
}): Promise<DynamoCommitBarrier> => {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });

  /** Sends one request to DynamoDB Local; resolves with its whole answer. */
  const send = (method: string, path: string, headers: IncomingHttpHeaders, body: Buffer | string) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const outgoing = request(
        { hostname: upstream.hostname, port: upstream.port, method, path, headers, agent },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(chunks) }),
          );
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });

  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', async () => {
      try {
        const headers = { ...incoming.headers };
        delete headers.connection;
        const answer = await send(incoming.method ?? 'POST', incoming.url ?? '/', headers, Buffer.concat(chunks));
        if (answer.status === 200 && incoming.headers['x-amz-target'] === TRANSACT_WRITE) {
          const barrier = await send('POST', '/', barrierHeaders(incoming.headers), BARRIER_BODY);
          // Answered, it went through the SQLite thread after the COMMIT; anything else proves nothing.
          if (barrier.status !== 200) throw new Error(`the commit barrier was answered ${barrier.status}`);
        }
        const { connection: _connection, 'keep-alive': _keepAlive, ...passed } = answer.headers;
        outgoing.writeHead(answer.status, passed);
        outgoing.end(answer.body);
      } catch (error) {
        // DynamoDB Local is gone (a crash): whether the transaction was kept is unknown, so no success.
        if (outgoing.headersSent) return outgoing.destroy();
        const body = internalError(`DynamoDB Local did not answer: ${(error as Error).message}`);
        outgoing.writeHead(500, {
          'content-type': 'application/x-amz-json-1.0',
          'content-length': Buffer.byteLength(body),
        });
        outgoing.end(body);
      }
    });
  });
  const boundPort = await listen(server, port);
  return {
    endpoint: `http://127.0.0.1:${boundPort}`,
    close: async () => {
      await closeServer(server);
      agent.destroy();
    },
  };
};
