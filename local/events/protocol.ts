import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { AwsJsonError, awsJsonListener } from '../aws-json/listener.js';

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
      throw new AwsJsonError(
        'ValidationException',
        `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length less than or equal to ${MAX_ENTRIES} and greater than or equal to 1`,
      );
    }
    if (entries.some((entry) => typeof entry !== 'object' || entry === null)) {
      throw new AwsJsonError('ValidationException', 'Each entry must be an object.');
    }
    if ((entries as Entry[]).reduce((sum, entry) => sum + entryBytes(entry), 0) > MAX_ENTRIES_BYTES) {
      throw new AwsJsonError('ValidationException', 'Total size of the entries in the request is over the limit.');
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

  return awsJsonListener(
    {
      name: 'events',
      targetPrefix: 'AWSEvents',
      jsonVersion: '1.1',
      maxRequestBytes: MAX_REQUEST_BYTES,
      operations: { PutEvents: putEvents },
      errors: {
        unknown: (target) =>
          new AwsJsonError(
            'UnknownOperationException',
            `The local EventBridge twin does not support ${target || 'this request'}.`,
          ),
        tooLarge: () => new AwsJsonError('ValidationException', 'The request is too large.', 413),
        internal: (message) => new AwsJsonError('InternalException', message, 500),
      },
      errorBody: (e) => ({ __type: e.code, message: e.message }),
    },
    log,
  );
};
