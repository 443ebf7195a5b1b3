import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Keyring } from '#shared/links/keyring.js';

/*
 * Endpoint secrets. A secret is `whsec_` and the base64 of 32 random bytes (the Standard Webhooks
 * form); the answer of the set or rotation that makes it shows it once. It is stored sealed
 * (AES-256-GCM) under a key derived from the link keys' secret (shared/links/keyring.ts: one more
 * HKDF purpose): Secrets Manager holds the only key material, as for the links, and no secret per
 * endpoint exists to create, grant and pay for. `<keyId>.<base64url of IV, ciphertext and tag>`;
 * the organization and endpoint are its additional data, so a sealed secret moved to another
 * endpoint fails to open.
 */

const PREFIX = 'whsec_';
const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export const newSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64')}`;

const boundTo = (organizationId: string, endpointId: string): Buffer =>
  Buffer.from(JSON.stringify(['webhook-secret', organizationId, endpointId]));

export const sealSecret = (secret: string, organizationId: string, endpointId: string, keyring: Keyring): string => {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(CIPHER, keyring.current.webhookSecret, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(boundTo(organizationId, endpointId));
  const sealed = Buffer.concat([iv, cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${keyring.current.id}.${sealed.toString('base64url')}`;
};

/** Whether a sealed secret was sealed under a key other than the current one (a rotation of the link keys since). */
export const sealedUnderOlderKey = (sealed: string, keyring: Keyring): boolean =>
  sealed.slice(0, sealed.indexOf('.')) !== keyring.current.id;

export class SecretUnreadableError extends Error {
  override readonly name = 'SecretUnreadableError';
}

/** The secret in clear; a SecretUnreadableError (naming no secret) when its key is gone or it was altered. */
export const openSecret = (sealed: string, organizationId: string, endpointId: string, keyring: Keyring): string => {
  const dot = sealed.indexOf('.');
  const key = keyring.byId.get(sealed.slice(0, dot));
  if (dot < 0 || !key)
    throw new SecretUnreadableError(`The key of endpoint ${endpointId}'s secret is not in the keyring`);
  const bytes = Buffer.from(sealed.slice(dot + 1), 'base64url');
  try {
    const decipher = createDecipheriv(CIPHER, key.webhookSecret, bytes.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(boundTo(organizationId, endpointId));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw new SecretUnreadableError(`Endpoint ${endpointId}'s secret does not open`);
  }
};

/**
 * The `webhook-signature` header (Standard Webhooks): `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body` under the bytes of each secret, space-separated. node:crypto's HMAC is
 * native; the reference library's is JavaScript, and tests verify with it.
 */
export const signatureHeader = (secrets: readonly string[], id: string, timestamp: number, body: string): string =>
  secrets
    .map(
      (secret) =>
        `v1,${createHmac('sha256', Buffer.from(secret.slice(PREFIX.length), 'base64'))
          .update(`${id}.${timestamp}.${body}`)
          .digest('base64')}`,
    )
    .join(' ');
