import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError, UNAUTHENTICATED_MESSAGE } from '#shared/api/errors.js';
import { grantsScope, type Scope } from '#shared/api/scopes.js';

/** docs/api.md, Authentication. The token itself is never stored: only its SHA-256. */
export interface Credential {
  apiKey: string;
  tokenHash: string;
  organizationIds: string[] | '*';
  createdAt: string;
  expiresAt?: string;
  revokedAt?: string;
  name?: string;
  /** What it may do; absent on credentials made before scopes existed, which hold every scope. */
  scopes?: Scope[];
  /** Its own request rate, instead of the deployment's default (rate-limit.ts). */
  rateLimit?: RateLimit;
}

/** Far above what one caller needs; a larger number is a typo. */
export const MAX_RATE_PER_SECOND = 100_000;

/** Requests per second, and how many may come at once after a quiet spell (a token bucket). */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** Compares hashes of equal length in constant time, whatever the presented token. */
export const tokenMatches = (token: string, tokenHash: string): boolean => {
  const expected = Buffer.from(tokenHash, 'hex');
  const presented = createHash('sha256').update(token, 'utf8').digest();
  return expected.length === presented.length && timingSafeEqual(expected, presented);
};

export const isActive = (credential: Credential, now: Date): boolean =>
  !credential.revokedAt && (!credential.expiresAt || Date.parse(credential.expiresAt) > now.getTime());

export const grantsOrganization = (credential: Credential, organizationId: string): boolean =>
  credential.organizationIds === '*' || credential.organizationIds.includes(organizationId);

export const hasScope = (credential: Credential, scope: Scope): boolean => grantsScope(credential.scopes, scope);

export const newApiKey = (): string => `ak_${randomBytes(12).toString('hex')}`;
export const newToken = (): string => `st_${randomBytes(32).toString('base64url')}`;

/**
 * What a presented key or token can be at all. Generated ones are `ak_` + 24 hex digits and
 * `st_` + 43 base64url characters; a developer may fix the twin's local pair to other printable
 * values. Visible ASCII with a length cap covers both and
 * keeps every key far below DynamoDB's 2,048-byte key limit: anything else cannot be a
 * credential, so it is refused without a lookup (an oversized key would even make DynamoDB
 * fail the call).
 */
export const MAX_API_KEY_LENGTH = 128;
export const MAX_TOKEN_LENGTH = 256;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

const isCredentialText = (value: unknown, maxLength: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= maxLength && VISIBLE_ASCII.test(value);

export const isWellFormedApiKey = (value: unknown): value is string => isCredentialText(value, MAX_API_KEY_LENGTH);
export const isWellFormedToken = (value: unknown): value is string => isCredentialText(value, MAX_TOKEN_LENGTH);

export const unauthenticated = (): ApiError => new ApiError('UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE);

export const permissionDenied = (organizationId: string): ApiError =>
  new ApiError('PERMISSION_DENIED', `The credential is not granted organization ${JSON.stringify(organizationId)}.`);

export const scopeDenied = (scope: Scope): ApiError =>
  new ApiError('PERMISSION_DENIED', `The credential is not granted the scope "${scope}", which this route needs.`);
