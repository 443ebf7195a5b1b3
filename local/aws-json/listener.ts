import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/**
 * The skeleton the twin's AWS stand-ins share (SQS, EventBridge, Secrets Manager): the AWS JSON
 * protocol as the SDK v3 clients speak it, a POST whose `x-amz-target` header names
 * `<prefix>.<Operation>` and whose body is a JSON object. Each stand-in supplies its operations
 * and how its service spells an error; this reads the bounded body, dispatches, and answers.
 */

/** An error the service itself would answer, with its code and HTTP status. */
export class AwsJsonError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly httpStatus = 400,
  ) {
    super(message);
  }
}

export type Operation = (input: Record<string, unknown>) => Promise<unknown>;

export interface AwsJsonService {
  /** The log tag: `[name] ...` on an internal failure. */
  name: string;
  /** What precedes the operation's name in x-amz-target: `AmazonSQS`, `AWSEvents`, `secretsmanager`. */
  targetPrefix: string;
  /** `1.0` or `1.1`. */
  jsonVersion: string;
  maxRequestBytes: number;
  operations: Record<string, Operation>;
  errors: {
    /** An operation this stand-in does not have (`target` as sent). */
    unknown(target: string): AwsJsonError;
    /** A body over maxRequestBytes. */
    tooLarge(): AwsJsonError;
    /** A failure of the stand-in itself (logged). */
    internal(message: string): AwsJsonError;
    /** A body that is no JSON object: the SDK's SerializationException. */
    serialization?(message: string): AwsJsonError;
    /** A service's own reading of other errors (SQS: an invalid receipt handle). */
    from?(error: unknown): AwsJsonError | undefined;
  };
  /** The answer's body for an error (services differ in `message` or `Message`, and in `__type`). */
  errorBody(error: AwsJsonError): unknown;
  /** Headers an error answer adds (SQS: x-amzn-query-error). */
  errorHeaders?(error: AwsJsonError): Record<string, string>;
}

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Thrown by readBody: the rest of the body is left unread, so the connection closes after the answer. */
class BodyTooLarge extends Error {}

const readBody = async (request: IncomingMessage, limit: number): Promise<string> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
};

const reply = (
  response: ServerResponse,
  jsonVersion: string,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  if (response.headersSent) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': `application/x-amz-json-${jsonVersion}`,
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
    ...headers,
  });
  response.end(text);
};

export const awsJsonListener = (service: AwsJsonService, log: (line: string) => void): RequestListener => {
  const { errors } = service;
  const serialization = (message: string) =>
    errors.serialization?.(message) ?? new AwsJsonError('SerializationException', message);

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    const body = await readBody(request, service.maxRequestBytes);
    const prefix = `${service.targetPrefix}.`;
    const name = target.slice(prefix.length);
    // Own names only: a target such as `AmazonSQS.constructor` is unknown, not Object's.
    const operation =
      target.startsWith(prefix) && Object.hasOwn(service.operations, name) ? service.operations[name] : undefined;
    if (request.method !== 'POST' || !operation) throw errors.unknown(target);
    let input: unknown;
    try {
      input = JSON.parse(body || '{}');
    } catch {
      throw serialization('The request body is not valid JSON.');
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw serialization('The request body is not a JSON object.');
    }
    reply(response, service.jsonVersion, 200, await operation(input as Record<string, unknown>));
  };

  return (request, response) => {
    handle(request, response).catch((error) => {
      const e =
        error instanceof AwsJsonError
          ? error
          : error instanceof BodyTooLarge
            ? errors.tooLarge()
            : (errors.from?.(error) ?? errors.internal(errorMessage(error)));
      // Only what failed: never a request's values (a secret's, a message's).
      if (e.httpStatus >= 500) log(`[${service.name}] ${e.message}`);
      if (error instanceof BodyTooLarge) response.setHeader('connection', 'close');
      reply(response, service.jsonVersion, e.httpStatus, service.errorBody(e), service.errorHeaders?.(e));
    });
  };
};
