import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
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
  /**
   * What was done: created, kept as it was, or replaced by a new pair because the saved one's
   * credential was revoked, expired or changed (which stays so: see `replaced`).
   */
  action: 'created' | 'kept' | 'replaced';
  /** When replaced: the saved key and what became of it. */
  replaced?: { apiKey: string; reason: string };
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

/** Why an existing credential cannot serve as the local one as it is. */
const unusable = (existing: Credential, token: string, now: Date): string | undefined => {
  if (existing.revokedAt) return `revoked at ${existing.revokedAt}`;
  if (!isActive(existing, now)) return `expired at ${existing.expiresAt}`;
  if (existing.tokenHash !== hashToken(token)) return 'changed (it has another token)';
  if (existing.organizationIds !== '*') return 'changed (it is no longer granted every organization)';
  return undefined;
};

/**
 * Makes sure the local credential exists and works for every organization. Only the token's
 * hash is stored in the table, so the generated pair is kept in `file` to print the same
 * values after a restart. LOCAL_API_KEY / LOCAL_AUTH_TOKEN override it (and are not saved).
 *
 * An existing credential is never rewritten: one an operator revoked (or that expired, or was
 * changed) stays so. A generated pair is then replaced by a new one; a fixed pair cannot be, so
 * the start stops and says why.
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
  let generated = { apiKey: saved.apiKey ?? newApiKey(), token: saved.token ?? newToken() };
  let apiKey = fixedKey || generated.apiKey;
  let token = fixedToken || generated.token;
  // The functions refuse any other key or token without a lookup: a fixed pair would never work.
  if (!isWellFormedApiKey(apiKey) || !isWellFormedToken(token)) {
    throw new Error(
      `LOCAL_API_KEY must be 1 to ${MAX_API_KEY_LENGTH} and LOCAL_AUTH_TOKEN 1 to ${MAX_TOKEN_LENGTH} visible ASCII characters (no spaces).`,
    );
  }

  const store = new DynamoCredentialStore(client, tableName);
  const existing = await store.get(apiKey);
  const reason = existing && unusable(existing, token, now);
  let replaced: LocalCredential['replaced'];
  if (reason) {
    if (fixedKey) {
      throw new Error(
        `LOCAL_API_KEY ${fixedKey} names a credential that was ${reason}, and it stays so. ` +
          'Set another LOCAL_API_KEY (and LOCAL_AUTH_TOKEN), or unset both for a generated credential.',
      );
    }
    replaced = { apiKey, reason };
    generated = { apiKey: newApiKey(), token: newToken() };
    apiKey = generated.apiKey;
    token = fixedToken || generated.token;
  }
  if (file && (saved.apiKey !== generated.apiKey || saved.token !== generated.token)) {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify(generated, null, 2)}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
  }
  if (existing && !reason) return { apiKey, token, action: 'kept' };
  await store.create({
    apiKey,
    tokenHash: hashToken(token),
    organizationIds: '*',
    createdAt: now.toISOString(),
    name: LOCAL_CREDENTIAL_NAME,
  });
  return replaced ? { apiKey, token, action: 'replaced', replaced } : { apiKey, token, action: 'created' };
};
