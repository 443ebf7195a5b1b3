import { createServer, type Server } from 'node:http';
import { newKeyringDocument, serializeKeyringDocument } from '#shared/links/keyring.js';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../lambda-context.js';
import { closeServer, listen } from '../listen.js';
import { guardAwsListener } from '../request-guard.js';
import { ensureKeyFile, readKeyFile, writeKeyFile } from './key-file.js';
import { type LocalSecret, type SecretValueStore, secretsManagerProtocol } from './protocol.js';

/**
 * The local twin's stand-in for Secrets Manager (docs/development.md, The local twin): the one
 * secret of the stack, the link keys, served on 127.0.0.1 to the functions through
 * AWS_ENDPOINT_URL_SECRETS_MANAGER, so that they read it exactly as deployed (Powertools
 * Parameters, the SDK's client) and the production code knows nothing of the twin. The value is
 * the key file of the data directory (key-file.ts), read at each request; in memory, a keyring
 * made at start.
 */

/** The secret's name: what LINK_KEYS_SECRET_ID names locally. */
export const LOCAL_LINK_KEYS_SECRET = 'notification-preferences-local/link-keys';
export const LOCAL_LINK_KEYS_ARN = `arn:aws:secretsmanager:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:secret:${LOCAL_LINK_KEYS_SECRET}-local`;

export interface LocalSecretsManagerOptions {
  /** The access key a request must be signed with (local/aws-credential.ts). */
  accessKeyId: string;
  /** The key file; none keeps the keys in memory. */
  keyFile?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  log?: (line: string) => void;
}

export interface LocalSecretsManager {
  endpoint: string;
  secretId: string;
  /** Whether this start made the keys (a new key file, or memory). */
  createdKeys: boolean;
  close(): Promise<void>;
}

const fileStore = (file: string): SecretValueStore => ({
  read: async () => {
    const value = await readKeyFile(file);
    if (value === undefined) throw new Error(`The key file ${file} is gone`);
    return value;
  },
  write: (value) => writeKeyFile(file, value),
});

const memoryStore = (initial: string): SecretValueStore => {
  let value = initial;
  return {
    read: async () => value,
    write: async (next) => {
      value = next;
    },
  };
};

export const startLocalSecretsManager = async ({
  accessKeyId,
  keyFile,
  port = 0,
  log = () => {},
}: LocalSecretsManagerOptions): Promise<LocalSecretsManager> => {
  let store: SecretValueStore;
  let createdKeys = true;
  if (keyFile) {
    createdKeys = (await ensureKeyFile(keyFile)).created;
    store = fileStore(keyFile);
  } else {
    store = memoryStore(serializeKeyringDocument(newKeyringDocument()));
  }
  const secret: LocalSecret = { name: LOCAL_LINK_KEYS_SECRET, arn: LOCAL_LINK_KEYS_ARN, store };
  const server: Server = createServer(
    guardAwsListener(secretsManagerProtocol(secret, log), { accessKeyId, jsonVersion: '1.1' }),
  );
  const boundPort = await listen(server, port);
  return {
    endpoint: `http://127.0.0.1:${boundPort}`,
    secretId: LOCAL_LINK_KEYS_SECRET,
    createdKeys,
    close: () => closeServer(server),
  };
};
