import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/**
 * Secrets Manager as the SDK v3 client speaks it, for the one secret the twin has (the link
 * keys): AWS JSON 1.1 over HTTP (`x-amz-target: secretsmanager.<Operation>`). GetSecretValue (what
 * Powertools Parameters calls) and PutSecretValue (what `npm run link-keys` calls), with Secrets
 * Manager's answers; any other operation, or another secret, is refused as Secrets Manager would.
 */

const MAX_REQUEST_BYTES = 256 * 1024;
/** Secrets Manager's limit of a secret value. */
const MAX_SECRET_BYTES = 65_536;

/** Where the secret's value is kept: the key file, or memory. */
export interface SecretValueStore {
  read(): Promise<string>;
  write(value: string): Promise<void>;
}

export interface LocalSecret {
  name: string;
  arn: string;
  store: SecretValueStore;
}

class SecretsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly httpStatus = 400,
  ) {
    super(message);
  }
}

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) throw new SecretsError('InvalidRequestException', 'The request is too large.', 413);
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

export const secretsManagerProtocol = (secret: LocalSecret, log: (line: string) => void): RequestListener => {
  /** A version id per value, as Secrets Manager gives each PutSecretValue. */
  let version: string = randomUUID();
  const created = Date.now() / 1000;
  const named = (input: Record<string, unknown>) => {
    const id = input.SecretId;
    if (id !== secret.name && id !== secret.arn) {
      throw new SecretsError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    }
  };

  const operations: Record<string, (input: Record<string, unknown>) => Promise<unknown>> = {
    GetSecretValue: async (input) => {
      named(input);
      return {
        ARN: secret.arn,
        Name: secret.name,
        VersionId: version,
        SecretString: await secret.store.read(),
        VersionStages: ['AWSCURRENT'],
        CreatedDate: created,
      };
    },
    PutSecretValue: async (input) => {
      named(input);
      const value = input.SecretString;
      if (typeof value !== 'string' || value.length === 0 || Buffer.byteLength(value) > MAX_SECRET_BYTES) {
        throw new SecretsError('InvalidParameterException', 'You must provide a SecretString of 1 to 65536 bytes.');
      }
      await secret.store.write(value);
      version = typeof input.ClientRequestToken === 'string' ? input.ClientRequestToken : randomUUID();
      return { ARN: secret.arn, Name: secret.name, VersionId: version, VersionStages: ['AWSCURRENT'] };
    },
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    const body = await readBody(request);
    const operation = target.startsWith('secretsmanager.')
      ? operations[target.slice('secretsmanager.'.length)]
      : undefined;
    if (request.method !== 'POST' || !operation) {
      throw new SecretsError(
        'UnknownOperationException',
        `The local Secrets Manager stand-in does not support ${target || 'this request'}.`,
      );
    }
    let input: unknown;
    try {
      input = JSON.parse(body || '{}');
    } catch {
      throw new SecretsError('SerializationException', 'The request body is not valid JSON.');
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw new SecretsError('SerializationException', 'The request body is not a JSON object.');
    }
    reply(response, 200, await operation(input as Record<string, unknown>));
  };

  return (request, response) => {
    handle(request, response).catch((error) => {
      const e =
        error instanceof SecretsError
          ? error
          : new SecretsError('InternalServiceError', error instanceof Error ? error.message : String(error), 500);
      // Never the value: only what failed.
      if (e.httpStatus >= 500) log(`[secrets] ${e.message}`);
      if (e.httpStatus === 413) response.setHeader('connection', 'close');
      reply(response, e.httpStatus, { __type: e.code, Message: e.message });
    });
  };
};
