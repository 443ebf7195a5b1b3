import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/**
 * PutEvents as the SDK v3 EventBridgeClient speaks it: AWS JSON 1.1 over HTTP
 * (`x-amz-target: AWSEvents.PutEvents`), with EventBridge's limits and answers: 1 to 10 entries
 * and 256 KiB per request (else ValidationException), each entry accepted with an EventId or
 * refused on its own (ErrorCode, ErrorMessage) and counted in FailedEntryCount.
 */

const MAX_ENTRIES = 10;
const MAX_ENTRIES_BYTES = 256 * 1024;
const MAX_REQUEST_BYTES = 1024 * 1024;

/** An accepted event: EventBridge's names for its fields, as events.jsonl holds it. */
export interface AcceptedEvent {
  'detail-type': string;
  source: string;
  detail: Record<string, unknown>;
}

/** Takes the accepted events of one request; resolves once they are kept (the answer waits for it). */
export type EventSink = (events: { id: string; event: AcceptedEvent }[]) => Promise<void>;

class EventsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly httpStatus = 400,
  ) {
    super(message);
  }
}

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) throw new EventsError('ValidationException', 'The request is too large.', 413);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
};

const reply = (response: ServerResponse, status: number, body: unknown) => {
  if (response.headersSent) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
  });
  response.end(text);
};

type Entry = Record<string, unknown>;
type Refusal = { ErrorCode: string; ErrorMessage: string };
type EntryResult = { EventId: string } | Refusal;

const refused = (ErrorCode: string, ErrorMessage: string): Refusal => ({ ErrorCode, ErrorMessage });

/** EventBridge's size of an entry: its Source, DetailType, Detail and Resources, in UTF-8. */
const entryBytes = (entry: Entry): number =>
  ['Source', 'DetailType', 'Detail'].reduce(
    (sum, field) => sum + (typeof entry[field] === 'string' ? Buffer.byteLength(entry[field] as string) : 0),
    Array.isArray(entry.Resources) ? entry.Resources.reduce((n: number, r) => n + Buffer.byteLength(String(r)), 0) : 0,
  );

/** The request listener; `busName` is the one bus there is (by name or ARN). */
export const eventBridgeProtocol = (busName: string, sink: EventSink, log: (line: string) => void): RequestListener => {
  const isOurBus = (name: unknown) =>
    name === undefined || name === busName || (typeof name === 'string' && name.endsWith(`:event-bus/${busName}`));

  const check = (entry: Entry): Refusal | AcceptedEvent => {
    for (const field of ['Source', 'DetailType', 'Detail'] as const) {
      if (typeof entry[field] !== 'string' || entry[field] === '') {
        return refused('InvalidArgument', `Parameter ${field} is not valid. Reason: ${field} is a required argument.`);
      }
    }
    if (!isOurBus(entry.EventBusName)) {
      return refused('ResourceNotFoundException', `Event bus ${String(entry.EventBusName)} does not exist.`);
    }
    let detail: unknown;
    try {
      detail = JSON.parse(entry.Detail as string);
    } catch {
      return refused('MalformedDetail', 'Detail is malformed.');
    }
    if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) {
      return refused('MalformedDetail', 'Detail is malformed.');
    }
    return { 'detail-type': entry.DetailType as string, source: entry.Source as string, detail: detail as Entry };
  };

  const putEvents = async (input: Entry) => {
    const entries = input.Entries;
    if (!Array.isArray(entries) || entries.length === 0 || entries.length > MAX_ENTRIES) {
      throw new EventsError(
        'ValidationException',
        `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length less than or equal to ${MAX_ENTRIES} and greater than or equal to 1`,
      );
    }
    if (entries.some((entry) => typeof entry !== 'object' || entry === null)) {
      throw new EventsError('ValidationException', 'Each entry must be an object.');
    }
    if ((entries as Entry[]).reduce((sum, entry) => sum + entryBytes(entry), 0) > MAX_ENTRIES_BYTES) {
      throw new EventsError('ValidationException', 'Total size of the entries in the request is over the limit.');
    }
    const results: EntryResult[] = [];
    const accepted: { id: string; event: AcceptedEvent }[] = [];
    for (const entry of entries as Entry[]) {
      const checked = check(entry);
      if ('ErrorCode' in checked) {
        results.push(checked);
      } else {
        const id = randomUUID();
        accepted.push({ id, event: checked });
        results.push({ EventId: id });
      }
    }
    if (accepted.length > 0) await sink(accepted);
    return { FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length, Entries: results };
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    const body = await readBody(request);
    if (request.method !== 'POST' || target !== 'AWSEvents.PutEvents') {
      throw new EventsError(
        'UnknownOperationException',
        `The local EventBridge twin does not support ${target || 'this request'}.`,
      );
    }
    let input: unknown;
    try {
      input = JSON.parse(body || '{}');
    } catch {
      throw new EventsError('SerializationException', 'The request body is not valid JSON.');
    }
    if (typeof input !== 'object' || input === null)
      throw new EventsError('SerializationException', 'The request body is not a JSON object.');
    reply(response, 200, await putEvents(input as Entry));
  };

  return (request, response) => {
    handle(request, response).catch((error) => {
      const e = error instanceof EventsError ? error : new EventsError('InternalException', errorMessage(error), 500);
      if (e.httpStatus >= 500) log(`[events] ${errorMessage(error)}`);
      // A body left unread (too large) is not drained: the connection closes after the answer.
      if (e.httpStatus === 413) response.setHeader('connection', 'close');
      reply(response, e.httpStatus, { __type: e.code, message: e.message });
    });
  };
};
