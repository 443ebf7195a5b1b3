import { createServer, type Server } from 'node:http';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../lambda-context.js';
import { hostPort, listen } from '../listen.js';
import { guardAwsListener } from '../request-guard.js';
import { sqsProtocol } from './protocol.js';
import { LocalQueue, type LogLine, type QueueOptions } from './queue.js';
import { QueueStore } from './store.js';

/**
 * The local twin of SQS plus Lambda's SQS event source mapping, in process: an HTTP endpoint
 * for the SDK (protocol.ts), queues that deliver to their consumer (queue.ts), and, unless in
 * memory, a store that keeps every acknowledged message across restarts and crashes (store.ts).
 */

export interface LocalSqsOptions {
  /** The access key a request must be signed with (local/aws-credential.ts). */
  accessKeyId: string;
  host?: string;
  port?: number;
  region?: string;
  /** The file that keeps the queues' messages across restarts; none keeps them in memory. */
  persistFile?: string;
  log?: LogLine;
}

export interface LocalSqs {
  /** The endpoint for AWS_ENDPOINT_URL_SQS. */
  endpoint: string;
  createQueue(name: string, options?: QueueOptions): LocalQueue;
  queue(name: string): LocalQueue | undefined;
  /** Every queue, in the order created. */
  queues(): LocalQueue[];
  /** Loads the saved messages into the queues created so far; returns how many. */
  restore(): Promise<number>;
  /** Stops the deliveries, writes what is pending and closes the endpoint. */
  close(): Promise<void>;
}

/** Starts the SQS endpoint; create the queues on it afterwards (their URLs need its port). */
export const startLocalSqs = async ({
  accessKeyId,
  host = '127.0.0.1',
  port = 0,
  region = LOCAL_REGION,
  persistFile,
  log = () => {},
}: LocalSqsOptions): Promise<LocalSqs> => {
  const queues = new Map<string, LocalQueue>();
  const store = persistFile ? await QueueStore.open(persistFile, log) : undefined;
  const server: Server = createServer(
    guardAwsListener(sqsProtocol({ named: (name) => queues.get(name), all: () => [...queues.values()] }, log), {
      accessKeyId,
      jsonVersion: '1.0',
    }),
  );

  const boundPort = await listen(server, port, host).catch(async (error) => {
    await store?.close();
    throw error;
  });
  const endpoint = `http://${hostPort(host, boundPort)}`;

  return {
    endpoint,
    createQueue(name, options = {}) {
      const url = `${endpoint}/${LOCAL_ACCOUNT_ID}/${name}`;
      const queue = new LocalQueue(name, url, region, options, log, store?.journal(name));
      queues.set(name, queue);
      return queue;
    },
    queue: (name) => queues.get(name),
    queues: () => [...queues.values()],
    async restore() {
      if (!store) return 0;
      let count = 0;
      for (const [name, queue] of queues) count += queue.restore(store.messages(name));
      return count;
    },
    async close() {
      try {
        await Promise.all([...queues.values()].map((queue) => queue.close()));
        await store?.close();
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
};
