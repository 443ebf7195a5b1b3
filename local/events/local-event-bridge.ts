import { createServer, type Server } from 'node:http';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../lambda-context.js';
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
  /** The bus's rules: each accepted event that matches one goes to its target, as EventBridge's rules send it. */
  rules?: readonly LocalRule[];
  log?: (line: string) => void;
}

/** A rule of the bus: events of these sources and detail types go to `target` (a queue's send), as EventBridge puts them there. */
export interface LocalRule {
  source: readonly string[];
  detailType: readonly string[];
  target: (event: BusEventEnvelope) => Promise<void>;
}

/** An event as an EventBridge rule hands it to its target (an SQS message body). */
export interface BusEventEnvelope {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: Record<string, unknown>;
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
  rules = [],
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
            for (const rule of rules) {
              if (!rule.source.includes(event.source) || !rule.detailType.includes(event['detail-type'])) continue;
              await rule.target({
                version: '0',
                id,
                'detail-type': event['detail-type'],
                source: event.source,
                account: LOCAL_ACCOUNT_ID,
                // EventBridge's time has whole seconds.
                time: `${new Date().toISOString().slice(0, 19)}Z`,
                region: LOCAL_REGION,
                resources: [],
                detail: event.detail,
              });
            }
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
