import { compactDecrypt, EncryptJWT } from 'jose';
import * as z from 'zod/mini';
import { categoryId } from '#shared/api/categories.js';
import { CHANNELS } from '#shared/api/channels.js';
import { identifier } from '#shared/api/identifiers.js';
import { MAX_LOCALE_LENGTH } from '#shared/api/locales.js';
import { KEY_ID_PATTERN, type Keyring } from './keyring.js';
import { type LinkPurpose, type LinkScope, MAX_LINK_SECONDS, type OpenedLink } from './model.js';

/*
 * A link's token (docs/design.md, Link tokens): a JWT in compact JWE serialization as `jose`
 * writes it, `dir` key management with A256GCM content encryption under the key named by its
 * `kid` header. The header holds exactly alg, enc and kid; the claims (organization, user,
 * document, category, channel, purpose, locale, iat, exp) are encrypted and authenticated, so a token
 * reveals no identifier and cannot be altered. Short claim names keep the URLs short.
 *
 * Opening is two steps, so that a page does the same work for every well-formed token whatever
 * its fate (opened.ts): unsealLink (the key, the header, the authentication tag, the claims'
 * shape), then isOpen (the times, the lifetime, the purpose), after the page's read.
 */

/** A token can never be longer (worst case: three 256-character ids of 3-byte characters); anything longer is refused unread. */
export const MAX_TOKEN_LENGTH = 4096;

// Five base64url parts; `dir` leaves the encrypted key (the second) empty.
const COMPACT_JWE = /^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const ALG = 'dir';
const ENC = 'A256GCM';
/** The protected header's members, exactly: no other parameter (`zip`, `crit`, ...) is accepted. */
const HEADER_MEMBERS = 'alg,enc,kid';

/** A token from the future by more than this is refused (clocks of different functions differ a little). */
const ISSUED_AT_TOLERANCE_SECONDS = 300;

const PURPOSE_CLAIMS = { unsubscribe: 'u', preferences: 'p' } as const satisfies Record<LinkPurpose, string>;

const claims = z.strictObject({
  o: identifier('organizationId'),
  u: identifier('userId'),
  d: z.optional(identifier('documentId')),
  c: z.optional(categoryId('category')),
  ch: z.enum(CHANNELS),
  p: z.optional(z.enum([PURPOSE_CLAIMS.unsubscribe, PURPOSE_CLAIMS.preferences])),
  l: z.optional(z.string().check(z.maxLength(MAX_LOCALE_LENGTH), z.regex(/^[A-Za-z0-9-]+$/))),
  iat: z.int(),
  exp: z.int(),
});

/** The claims of a link's token, in the order they are written. */
const claimsOf = (scope: LinkScope): Record<string, string | number> => {
  const payload: Record<string, string | number> = { o: scope.organizationId, u: scope.userId };
  if (scope.documentId !== undefined) payload.d = scope.documentId;
  if (scope.category !== undefined) payload.c = scope.category;
  payload.ch = scope.channel;
  if (scope.purpose !== undefined) payload.p = PURPOSE_CLAIMS[scope.purpose];
  if (scope.locale !== undefined) payload.l = scope.locale;
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

/** Whether `token` has the shape of a link's token (length and five parts): the pages do the same work for all of these. */
export const isWellFormedToken = (token: string): boolean =>
  token.length <= MAX_TOKEN_LENGTH && COMPACT_JWE.test(token);

const isExpectedHeader = (header: Record<string, unknown>): boolean =>
  Object.keys(header).sort().join(',') === HEADER_MEMBERS &&
  header.alg === ALG &&
  header.enc === ENC &&
  typeof header.kid === 'string' &&
  KEY_ID_PATTERN.test(header.kid);

/**
 * The link a well-formed token was sealed for, with exactly the expected header, by a key of the
 * keyring, with claims of the shape this service writes: undefined for anything else (altered,
 * an unknown or retired key, another header). Neither its times nor its purpose are checked
 * here (isOpen). Nothing here logs or throws.
 */
export const unsealLink = async (token: string, keyring: Keyring): Promise<OpenedLink | undefined> => {
  if (!isWellFormedToken(token)) return undefined;
  try {
    const header = JSON.parse(Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('utf8'));
    if (typeof header !== 'object' || header === null || !isExpectedHeader(header)) return undefined;
    const key = keyring.byId.get(header.kid);
    if (!key) return undefined;
    const { plaintext } = await compactDecrypt(token, key.encryption, {
      keyManagementAlgorithms: [ALG],
      contentEncryptionAlgorithms: [ENC],
    });
    const parsed = claims.safeParse(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(plaintext)));
    if (!parsed.success) return undefined;
    const { o, u, d, c, ch, p, l, iat, exp } = parsed.data;
    return {
      keyId: key.id,
      organizationId: o,
      userId: u,
      ...(d === undefined ? {} : { documentId: d }),
      ...(c === undefined ? {} : { category: c }),
      channel: ch,
      ...(p === undefined ? {} : { purpose: p === PURPOSE_CLAIMS.unsubscribe ? 'unsubscribe' : 'preferences' }),
      ...(l === undefined ? {} : { locale: l }),
      issuedAt: iat,
      expiresAt: exp,
    };
  } catch {
    return undefined;
  }
};

/**
 * Whether an unsealed link opens `purpose`'s page at `now`: not expired, not from the future, a
 * lifetime of at most MAX_LINK_SECONDS (what links/create makes), and made for that page (a link
 * without a purpose, made before purposes existed, opens both).
 */
export const isOpen = (link: OpenedLink, now: Date, purpose: LinkPurpose): boolean => {
  const seconds = Math.floor(now.getTime() / 1000);
  return (
    link.expiresAt > seconds &&
    link.issuedAt <= seconds + ISSUED_AT_TOLERANCE_SECONDS &&
    link.expiresAt > link.issuedAt &&
    link.expiresAt - link.issuedAt <= MAX_LINK_SECONDS &&
    (link.purpose === undefined || link.purpose === purpose)
  );
};

/** unsealLink, then isOpen: the link for `purpose`'s page at `now`, or undefined alike for every failure. */
export const openLink = async (
  token: string,
  keyring: Keyring,
  now: Date,
  purpose: LinkPurpose,
): Promise<OpenedLink | undefined> => {
  const link = await unsealLink(token, keyring);
  return link && isOpen(link, now, purpose) ? link : undefined;
};
