import { DEFAULT_LINK_DAYS, MAX_LINK_DAYS, MAX_LINK_MINUTES, MIN_LINK_MINUTES } from '#shared/links/model.js';
import type { createLinksRoute } from '#shared/links/routes/create-links.js';
import type { revokeLinksRoute } from '#shared/links/routes/revoke-links.js';
import { BODY_RULE, COMMON_ERRORS, IDENTIFIER_RULE, type OperationDocs, TIME, withInvalidArgument } from './common.js';

// Real tokens, sealed with an example key (no deployment has it): links look like these.
const ALICE_TOKEN =
  'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIiwia2lkIjoiazEifQ..hYBmMsv-JyyKD42H.UJUs15-PGpgDK1OQLUTUUHkkgz5-bmFHbbs03_EGeSoeRWgazT_Ec8mhMNY7wVMfXRtowpzqBu2zI5yclhfLo_QHVPVs3T8sADv48xOzCH29FiI.A1YAh3erExrnuN5GL-yG9g';
const BOB_TOKEN =
  'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIiwia2lkIjoiazEifQ..0ixxWifmPp8bjSrT.4jnOi2LJADdR5RU77rpPQNqYJoJEFEXWK8VGld8zMpwDwI_jOXM2CvNwKQv-LKmRaBiJ04_8jnb9q9QjNhVkkzY4TRbVpd2eFw3wDL_Ho1t9.pUSGXXKWKbO-Dtz32edVVQ';
const BASE = 'https://prefs.example.com';

const linksOf = (token: string) => ({
  unsubscribeUrl: `${BASE}/u/${token}`,
  preferencesUrl: `${BASE}/p/${token}`,
  expiresAt: '2027-02-20T09:00:00.000Z',
  headers: {
    'List-Unsubscribe': `<${BASE}/u/${token}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' as const,
  },
});

export const createLinksDocs: OperationDocs<typeof createLinksRoute> = {
  tag: 'Links in emails',
  name: 'CreateLinks',
  summary: 'Make the unsubscribe and preference-page links of an email',
  description: [
    'For each user, the links to put in an email about the given scope: `unsubscribeUrl` (one-click unsubscribe,',
    'RFC 8058), `preferencesUrl` (the preference page), when they expire, and the two headers to add to the email',
    'as they are (`List-Unsubscribe` and `List-Unsubscribe-Post`), which make mail clients show their unsubscribe',
    'button. Nothing is stored: each link carries its scope (organization, user, optional document and category,',
    'the channel, when it was made and until when it works), encrypted and authenticated, so that a link reveals',
    'no identifier and cannot be altered. A link unsubscribes from its channel (default `email`) for its document',
    'and category (without a document: for the whole organization); its page offers the wider choices. Each URL',
    'has its own token, which opens its own page only: the `List-Unsubscribe` URL cannot open the preference page.',
    '',
    'The public pages the links open (`GET|POST /u/{token}`, `GET|POST /p/{token}`) are described in the API guide',
    '(docs/api.md, Links in emails): HTML pages for people and mail providers, outside this JSON protocol.',
    '',
    `Limits: \`userIds\` 1 to 1000 (duplicates collapsed); \`expiresInDays\` 1 to ${MAX_LINK_DAYS} (default`,
    `${DEFAULT_LINK_DAYS}), or in its place (not both) \`expiresInMinutes\` ${MIN_LINK_MINUTES} to ${MAX_LINK_MINUTES}; the answer at most 5 MB of UTF-8 (each link carries the ids: very many users with long ids`,
    `are refused, before any link is made). Needs the \`resolve\` scope. ${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: withInvalidArgument('Also a category id that is not one, a channel that is not one, or an answer over 5 MB.'),
  examples: {
    document: {
      summary: 'Links for two users, in an email about a document',
      value: { organizationId: 'acme', userIds: ['alice', 'bob'], documentId: 'doc-1' },
      result: { alice: linksOf(ALICE_TOKEN), bob: linksOf(BOB_TOKEN) },
    },
  },
  invalidExample: {
    summary: 'A link that would outlive the longest link life',
    value: { organizationId: 'acme', userIds: ['alice'], expiresInDays: 400 },
  },
  fields: {
    request: {
      userIds: 'The users the email goes to: one set of links each.',
      documentId: 'The document the email is about: the unsubscribe link acts on that document only.',
      category: "The notification's category: the unsubscribe link acts on that category only.",
      channel: 'The channel the unsubscribe link turns off (default `email`).',
      expiresInDays: `How long the links work, in days (1 to ${MAX_LINK_DAYS}, default ${DEFAULT_LINK_DAYS}).`,
      expiresInMinutes: `In place of expiresInDays (not both): how long the links work, in minutes (${MIN_LINK_MINUTES} to ${MAX_LINK_MINUTES}), for a link an app opens in its own UI at once.`,
    },
    result: {
      '': 'One entry per distinct user id, keyed by that id.',
      '{}.unsubscribeUrl':
        'Opens a page that offers to unsubscribe; a POST of `List-Unsubscribe=One-Click` to it unsubscribes at once.',
      '{}.preferencesUrl': "Opens the user's preference page.",
      '{}.expiresAt': `${TIME} The links answer a "this link does not work" page from then on.`,
      '{}.headers': 'The email headers of RFC 8058, ready to add as they are.',
    },
  },
};

export const revokeLinksDocs: OperationDocs<typeof revokeLinksRoute> = {
  tag: 'Links in emails',
  name: 'RevokeLinks',
  summary: 'Stop every link made so far for some users',
  description: [
    'Every link made for these users until now (to the second) stops working: its pages answer "this link does not',
    'work", as for an expired link. For a leaked link: no key needs to change, and links made afterwards work. An',
    "erasure of a user (users/erase) does the same for that user's links. Safe to repeat.",
    '',
    `Limits: \`userIds\` 1 to 1000 (duplicates collapsed). Needs the \`write\` scope. ${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: COMMON_ERRORS,
  examples: {
    leaked: {
      summary: "Revoke bob's links",
      value: { organizationId: 'acme', userIds: ['bob'] },
      result: { revokedBefore: '2026-11-22T09:30:01.000Z' },
    },
  },
  invalidExample: { summary: 'No users', value: { organizationId: 'acme', userIds: [] } },
  fields: {
    result: { revokedBefore: `${TIME} Links of these users made before it no longer work.` },
  },
};

/**
 * The pages the links open: outside the JSON protocol (no API key, HTML answers), so no operation
 * of this document; described with the operations that make the links.
 */
export const LINK_PAGES_DESCRIPTION = [
  'The links open public pages of the same API, for people and mail providers: HTML, no API key, no `{data}`',
  'envelope (the API guide, docs/api.md, has the details).',
  '',
  '- `GET /u/{token}`: what the link would unsubscribe from (its document and category, or wider: the category',
  '  everywhere, or every notification of its channel from the organization), a button, and a link to the',
  '  preference page. It never changes anything: mail scanners open every link.',
  '- `POST /u/{token}` with the body `List-Unsubscribe=One-Click` (`application/x-www-form-urlencoded` or',
  "  `multipart/form-data`): RFC 8058's one-click unsubscribe. Sets the link's channel to `NONE` for its scope (or",
  '  the wider `scope` the page sent: `document`, `category`, `organization`); 200 with a short page. A channel the',
  "  organization's policy locks is left as it is (200, the page says why). Any other body: a 400 page.",
  "- `GET /p/{token}`: the preference page: the user's value of each channel for each category of the",
  "  organization's policy and for everything else (and, for a link about a document, that document), in words,",
  '  with "use the default"; locked channels shown but not editable. `POST /p/{token}` saves its form and answers',
  '  303 to the page.',
  '',
  'An unknown, altered, expired or revoked link answers 404 with the same page in every case. The pages never',
  'answer 5xx: a failure on the service side answers 429 with `Retry-After` and a page that says nothing changed.',
  'Every page sends `Content-Security-Policy`, `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`',
  'and `Cache-Control: no-store`. Changes made from a link are recorded like any other, with `cause: link` and',
  '`changedBy: link:<keyId>`.',
].join('\n');
