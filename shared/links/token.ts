import { decodeProtectedHeader, EncryptJWT, jwtDecrypt } from 'jose';
import * as z from 'zod/mini';
import { categoryId } from '#shared/api/categories.js';
import { CHANNELS } from '#shared/api/channels.js';
import { identifier } from '#shared/api/identifiers.js';
import { KEY_ID_PATTERN, type Keyring } from './keyring.js';
import type { LinkScope, OpenedLink } from './model.js';

/*
 * A link's token (docs/design.md, Link tokens): a JWT in compact JWE serialization as `jose`
 * writes it, `dir` key management with A256GCM content encryption under the key named by its
 * `kid` header. The header holds only alg, enc and kid; the claims (organization, user, document,
 * category, channel, iat, exp) are encrypted and authenticated, so a token reveals no identifier
 * and cannot be altered. Short claim names keep the URLs short.
 */

/** A token can never be longer (worst case: three 256-character ids of 3-byte characters); anything longer is refused unread. */
export const MAX_TOKEN_LENGTH = 4096;

// Five base64url parts; `dir` leaves the encrypted key (the second) empty.
const COMPACT_JWE = /^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const ALG = 'dir';
const ENC = 'A256GCM';

/** A token from the future by more than this is refused (clocks of different functions differ a little). */
const ISSUED_AT_TOLERANCE_SECONDS = 300;

const claims = z.strictObject({
  o: identifier('organizationId'),
  u: identifier('userId'),
  d: z.optional(identifier('documentId')),
  c: z.optional(categoryId('category')),
  ch: z.enum(CHANNELS),
  iat: z.int(),
  exp: z.int(),
});

/** The claims of a link's token, in the order they are written. */
const claimsOf = (scope: LinkScope): Record<string, string | number> => {
  const payload: Record<string, string | number> = { o: scope.organizationId, u: scope.userId };
  if (scope.documentId !== undefined) payload.d = scope.documentId;
  if (scope.category !== undefined) payload.c = scope.category;
  payload.ch = scope.channel;
  payload.iat = scope.issuedAt;
  payload.exp = scope.expiresAt;
  return payload;
};

const headerOf = (keyId: string) => ({ alg: ALG, enc: ENC, kid: keyId });

/** The token of a link, sealed with the keyring's current key. */
export const sealLink = (scope: LinkScope, keyring: Keyring): Promise<string> =>
  new EncryptJWT(claimsOf(scope)).setProtectedHeader(headerOf(keyring.current.id)).encrypt(keyring.current.encryption);

const base64urlLength = (bytes: number) => Math.ceil((bytes * 4) / 3);
const utf8Length = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
// A 96-bit IV and a 128-bit tag.
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The length of the token sealLink makes for `scope` under key `keyId`, without making it (A256GCM adds no padding). */
export const sealedLength = (scope: LinkScope, keyId: string): number =>
  base64urlLength(utf8Length(headerOf(keyId))) +
  2 +
  base64urlLength(IV_BYTES) +
  1 +
  base64urlLength(utf8Length(claimsOf(scope))) +
  1 +
  base64urlLength(TAG_BYTES);

/**
 * The link a token stands for, or undefined for anything else: malformed, oversized, an unknown or
 * retired key, altered, expired, or from the future. Undefined alike for every case (the caller
 * answers them all with the same page); nothing here logs or throws.
 */
export const openLink = async (token: string, keyring: Keyring, now: Date): Promise<OpenedLink | undefined> => {
  if (token.length > MAX_TOKEN_LENGTH || !COMPACT_JWE.test(token)) return undefined;
  try {
    const header = decodeProtectedHeader(token);
    const keyId = header.kid;
    if (header.alg !== ALG || header.enc !== ENC || typeof keyId !== 'string' || !KEY_ID_PATTERN.test(keyId)) {
      return undefined;
    }
    const key = keyring.byId.get(keyId);
    if (!key) return undefined;
    const { payload } = await jwtDecrypt(token, key.encryption, {
      keyManagementAlgorithms: [ALG],
      contentEncryptionAlgorithms: [ENC],
      currentDate: now,
      requiredClaims: ['iat', 'exp'],
    });
    const parsed = claims.safeParse(payload);
    if (!parsed.success) return undefined;
    const { o, u, d, c, ch, iat, exp } = parsed.data;
    if (iat > Math.floor(now.getTime() / 1000) + ISSUED_AT_TOLERANCE_SECONDS) return undefined;
    return {
      keyId,
      organizationId: o,
      userId: u,
      ...(d === undefined ? {} : { documentId: d }),
      ...(c === undefined ? {} : { category: c }),
      channel: ch,
      issuedAt: iat,
      expiresAt: exp,
    };
  } catch {
    return undefined;
  }
};
