import { assertAnswerFits, jsonBytes } from '#shared/api/answer-size.js';
import { distinct } from '#shared/api/identifiers.js';
import { canonicalTag } from '#shared/api/locales.js';
import { userMap } from '#shared/preferences/user-map.js';
import type { KeyringSource } from './keyring.js';
import {
  DAY_SECONDS,
  DEFAULT_LINK_CHANNEL,
  DEFAULT_LINK_DAYS,
  epochSeconds,
  LIST_UNSUBSCRIBE_POST,
  type LinkPurpose,
  type LinkScope,
} from './model.js';
import type { CreateLinksRequest, CreateLinksResult, UserLinks } from './routes/create-links.js';
import { sealedLength, sealLink } from './token.js';
import { preferencesUrl, unsubscribeUrl } from './urls.js';

export interface CreateLinksDeps {
  keys: KeyringSource;
  now?: () => Date;
}

/** One token per URL (contract 13.1): each opens only its own page. */
interface LinkTokens {
  unsubscribe: string;
  preferences: string;
}

const linksOf = (base: string, tokens: LinkTokens, expiresAt: number): UserLinks => {
  const unsubscribe = unsubscribeUrl(base, tokens.unsubscribe);
  return {
    unsubscribeUrl: unsubscribe,
    preferencesUrl: preferencesUrl(base, tokens.preferences),
    expiresAt: new Date(expiresAt * 1000).toISOString(),
    headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': LIST_UNSUBSCRIBE_POST },
  };
};

/**
 * docs/api.md, links/create: per user, an unsubscribe link and a preference-page link (a token
 * each, for its own page only, sealed with the current key), their expiry and the two List-Unsubscribe headers. Stores nothing.
 * An answer over 5 MB (long ids, many users) is refused before any token is made: a token's length
 * follows from its scope alone.
 */
export const createLinks = async (
  { keys, now = () => new Date() }: CreateLinksDeps,
  request: CreateLinksRequest,
  baseUrl: string,
): Promise<CreateLinksResult> => {
  const keyring = await keys.keyring();
  const issuedAt = epochSeconds(now());
  const lifetime =
    request.expiresInMinutes === undefined
      ? (request.expiresInDays ?? DEFAULT_LINK_DAYS) * DAY_SECONDS
      : request.expiresInMinutes * 60;
  const expiresAt = issuedAt + lifetime;
  const locale = request.locale === undefined ? undefined : canonicalTag(request.locale);
  const scopes = distinct(request.userIds).map(
    (userId): LinkScope => ({
      organizationId: request.organizationId,
      userId,
      ...(request.documentId === undefined ? {} : { documentId: request.documentId }),
      ...(request.category === undefined ? {} : { category: request.category }),
      channel: request.channel ?? DEFAULT_LINK_CHANNEL,
      ...(locale === undefined ? {} : { locale }),
      issuedAt,
      expiresAt,
    }),
  );

  // `{"result":{"status":"success","message":...,"data":{` ... `}}}`, each user `"<id>":{...},`.
  let bytes = jsonBytes({ result: { status: 'success', message: 'Links created successfully.', data: {} } });
  const placeholder = (scope: LinkScope, purpose: LinkPurpose) =>
    'x'.repeat(sealedLength({ ...scope, purpose }, keyring.current.id));
  for (const scope of scopes) {
    const tokens = { unsubscribe: placeholder(scope, 'unsubscribe'), preferences: placeholder(scope, 'preferences') };
    bytes += jsonBytes(scope.userId) + 1 + jsonBytes(linksOf(baseUrl, tokens, expiresAt)) + 1;
  }
  assertAnswerFits(
    bytes,
    "each user's links carry the user's, organization's and document's ids",
    'Send fewer users per request.',
  );
  const entries: (readonly [string, UserLinks])[] = [];
  for (const scope of scopes) {
    const tokens = {
      unsubscribe: await sealLink({ ...scope, purpose: 'unsubscribe' }, keyring),
      preferences: await sealLink({ ...scope, purpose: 'preferences' }, keyring),
    };
    entries.push([scope.userId, linksOf(baseUrl, tokens, expiresAt)]);
  }
  return userMap(entries);
};
