import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  type Credential,
  hashToken,
  isActive,
  isWellFormedApiKey,
  isWellFormedToken,
  MAX_API_KEY_LENGTH,
  MAX_TOKEN_LENGTH,
  newApiKey,
  newToken,
} from '#shared/auth/credential.js';
import { DynamoCredentialStore } from '#shared/auth/dynamo-credential-store.js';

export interface LocalCredential {
  apiKey: string;
  token: string;
  /** What was done: created, kept as it was, or restored (it was revoked, expired or changed). */
  action: 'created' | 'kept' | 'restored';
}

export const LOCAL_CREDENTIAL_NAME = 'local';

const readSaved = async (file: string | undefined): Promise<{ apiKey?: string; token?: string }> => {
  if (!file) return {};
  try {
    const saved = JSON.parse(await readFile(file, 'utf8')) as { apiKey?: unknown; token?: unknown };
    return {
      ...(typeof saved.apiKey === 'string' && saved.apiKey ? { apiKey: saved.apiKey } : {}),
      ...(typeof saved.token === 'string' && saved.token ? { token: saved.token } : {}),
    };
  } catch {
    return {};
  }
};

/**
 * Makes sure the local credential exists and works for every organization. Only the token's
 * hash is stored in the table, so the generated pair is kept in `file` to print the same
 * values after a restart. LOCAL_API_KEY / LOCAL_AUTH_TOKEN override it (and are not saved).
 */
export const ensureLocalCredential = async ({
  client,
  tableName,
  file,
  apiKey: fixedKey,
  token: fixedToken,
  now = new Date(),
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** Where the generated pair is kept; none (in memory) generates a new pair each run. */
  file?: string;
  apiKey?: string | undefined;
  token?: string | undefined;
  now?: Date;
}): Promise<LocalCredential> => {
  const saved = await readSaved(file);
  const generated = { apiKey: saved.apiKey ?? newApiKey(), token: saved.token ?? newToken() };
  if (file && (saved.apiKey !== generated.apiKey || saved.token !== generated.token)) {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify(generated, null, 2)}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
  }
  const apiKey = fixedKey || generated.apiKey;
  const token = fixedToken || generated.token;
  // The functions refuse any other key or token without a lookup: a fixed pair would never work.
  if (!isWellFormedApiKey(apiKey) || !isWellFormedToken(token)) {
    throw new Error(
      `LOCAL_API_KEY must be 1 to ${MAX_API_KEY_LENGTH} and LOCAL_AUTH_TOKEN 1 to ${MAX_TOKEN_LENGTH} visible ASCII characters (no spaces).`,
    );
  }

  const store = new DynamoCredentialStore(client, tableName);
  const existing = await store.get(apiKey);
  const works =
    existing && existing.tokenHash === hashToken(token) && existing.organizationIds === '*' && isActive(existing, now);
  if (works) return { apiKey, token, action: 'kept' };
  // The local store is a developer's own: the configured credential always wins.
  const credential: Credential = {
    apiKey,
    tokenHash: hashToken(token),
    organizationIds: '*',
    createdAt: now.toISOString(),
    name: LOCAL_CREDENTIAL_NAME,
  };
  await client.send(new PutCommand({ TableName: tableName, Item: credential }));
  return { apiKey, token, action: existing ? 'restored' : 'created' };
};
