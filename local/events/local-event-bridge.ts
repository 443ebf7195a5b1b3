import { createServer, type Server } from 'node:http';
import { closeServer, listen } from '../listen.js';
import { guardAwsListener } from '../request-guard.js';
import { EventsFile } from './events-file.js';
import { type AcceptedEvent, eventBridgeProtocol } from './protocol.js';

/**
 * The local twin of the service's EventBridge bus: a PutEvents endpoint (protocol.ts) for
 * AWS_ENDPOINT_URL_EVENTBRIDGE, on 127.0.0.1. Each accepted event becomes one JSON line of the
 * events file (events-file.ts; none in memory) and, given `print`, one printed line.
 */

export interface LocalEventBridgeOptions {
  /** The access key a request must be signed with (local/aws-credential.ts). */
  accessKeyId: string;
  /** The bus the functions name (EVENT_BUS_NAME). */
  busName: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Where accepted events are appended; none keeps nothing (in memory). */
  file?: string;
  /** Rotation size of the file (events-file.ts). */
  maxFileBytes?: number;
  /** Called with one line per accepted event. */
  print?: (line: string) => void;
  log?: (line: string) => void;
}

export interface LocalEventBridge {
  /** The endpoint for AWS_ENDPOINT_URL_EVENTBRIDGE. */
  endpoint: string;
  /** Finishes the writes under way, then closes the endpoint and the file. */
  close(): Promise<void>;
}

/** One line of the events file: EventBridge's names for the fields, in this order. */
export const eventLine = (event: AcceptedEvent): string =>
  `${JSON.stringify({ 'detail-type': event['detail-type'], source: event.source, detail: event.detail })}\n`;

export const startLocalEventBridge = async ({
  accessKeyId,
  busName,
  port = 0,
  file,
  maxFileBytes,
  print,
  log = () => {},
}: LocalEventBridgeOptions): Promise<LocalEventBridge> => {
  const events = file ? await EventsFile.open(file, maxFileBytes) : undefined;
  const server: Server = createServer(
    guardAwsListener(
      eventBridgeProtocol(
        busName,
        async (accepted) => {
          await events?.append(accepted.map(({ event }) => eventLine(event)));
          for (const { id, event } of accepted) {
            print?.(`event  ${event['detail-type']}  ${typeof event.detail.id === 'string' ? event.detail.id : id}`);
          }
        },
        log,
      ),
      { accessKeyId, jsonVersion: '1.1' },
    ),
  );
  const boundPort = await listen(server, port).catch(async (error) => {
    await events?.close();
    throw error;
  });
  return {
    endpoint: `http://127.0.0.1:${boundPort}`,
    async close() {
      await closeServer(server);
      await events?.close();
    },
  };
};
