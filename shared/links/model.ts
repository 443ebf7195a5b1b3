import type { Channel } from '#shared/api/channels.js';

/*
 * A link in an email (docs/api.md, Links in emails): what it may change, for whom and until when,
 * carried by the link itself (token.ts), since making links stores nothing.
 */

/** The longest life of a link: what a revocation, a forwarding record and a retired key must outlive. */
export const MAX_LINK_DAYS = 365;
export const DEFAULT_LINK_DAYS = 90;
export const DAY_SECONDS = 24 * 60 * 60;
export const MAX_LINK_SECONDS = MAX_LINK_DAYS * DAY_SECONDS;
/** A short-lived link, for an app that opens the preference page inside its own UI: minutes instead of days. */
export const MIN_LINK_MINUTES = 5;
export const MAX_LINK_MINUTES = 1_440;

/** The body of RFC 8058's one-click POST, and the value of the List-Unsubscribe-Post header. */
export const LIST_UNSUBSCRIBE_POST = 'List-Unsubscribe=One-Click';

/** The channel a link unsubscribes from when its request names none. */
export const DEFAULT_LINK_CHANNEL: Channel = 'email';

/**
 * Which page a link's token opens (contract 13.1: one token per URL): the unsubscribe URL's only
 * /u/ (the URL of the List-Unsubscribe header, which mailbox providers see and log, cannot open
 * the preference page), the preference URL's only /p/. Tokens made before purposes existed carry
 * none and open both until they expire.
 */
export const LINK_PURPOSES = ['unsubscribe', 'preferences'] as const;
export type LinkPurpose = (typeof LINK_PURPOSES)[number];

/** What a link acts on: a user in an organization, optionally one document and one category, one channel. */
export interface LinkScope {
  organizationId: string;
  userId: string;
  documentId?: string;
  category?: string;
  channel: Channel;
  /** The language of its pages (a canonical BCP 47 tag), if links/create named one. */
  locale?: string;
  /** The page it opens; absent on tokens made before purposes existed (they open both). */
  purpose?: LinkPurpose;
  /** Epoch seconds. */
  issuedAt: number;
  /** Epoch seconds; the link answers the 404 page from then on. */
  expiresAt: number;
}

/** A link as read from a valid token: its scope and the id of the key that sealed it (the actor `link:<keyId>`). */
export interface OpenedLink extends LinkScope {
  keyId: string;
}

export const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);
