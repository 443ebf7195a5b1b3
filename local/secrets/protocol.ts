import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { AwsJsonError, awsJsonListener, type Operation } from '../aws-json/listener.js';

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

export const secretsManagerProtocol = (secret: LocalSecret, log: (line: string) => void): RequestListener => {
  /** A version id per value, as Secrets Manager gives each PutSecretValue. */
  let version: string = randomUUID();
  const created = Date.now() / 1000;
  const named = (input: Record<string, unknown>) => {
    const id = input.SecretId;
    if (id !== secret.name && id !== secret.arn) {
      throw new AwsJsonError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    }
  };

  const operations: Record<string, Operation> = {
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
        throw new AwsJsonError('InvalidParameterException', 'You must provide a SecretString of 1 to 65536 bytes.');
      }
      await secret.store.write(value);
      version = typeof input.ClientRequestToken === 'string' ? input.ClientRequestToken : randomUUID();
      return { ARN: secret.arn, Name: secret.name, VersionId: version, VersionStages: ['AWSCURRENT'] };
    },
  };

  return awsJsonListener(
    {
      name: 'secrets',
      targetPrefix: 'secretsmanager',
      jsonVersion: '1.1',
      maxRequestBytes: MAX_REQUEST_BYTES,
      operations,
      errors: {
        unknown: (target) =>
          new AwsJsonError(
            'UnknownOperationException',
            `The local Secrets Manager stand-in does not support ${target || 'this request'}.`,
          ),
        tooLarge: () => new AwsJsonError('InvalidRequestException', 'The request is too large.', 413),
        internal: (message) => new AwsJsonError('InternalServiceError', message, 500),
      },
      errorBody: (e) => ({ __type: e.code, Message: e.message }),
    },
    log,
  );
};
