import { createHash } from 'node:crypto';
import type { Locale } from '#shared/api/locales.js';
import type { LinkEvidence } from '#shared/consent/evidence.js';
import type { ClientOfRequest } from '#shared/platform/public-page.js';
import { CATALOGS } from './i18n/catalogs/index.js';
import type { OpenedLink } from './model.js';

/*
 * The evidence of a change a person made from a link (docs/api.md, Consent evidence): the link's
 * key id and issue time, the version of the page they saw, and the client's address and user
 * agent as the edge received them (a deployment setting leaves those two out).
 */

/** Which page: the one-click form (`link`) or the preference page's (`page`). */
export type LinkPage = LinkEvidence['via'];

const versions = new Map<string, string>();

/**
 * A short hash of the words (the language's whole catalogue) and the form (its field names and
 * values, as the page module describes them) a person saw: it changes whenever either does.
 */
export const pageVersion = (page: LinkPage, locale: Locale, form: string): string => {
  const id = JSON.stringify([page, locale, form]);
  let version = versions.get(id);
  if (version === undefined) {
    version = createHash('sha256')
      .update(JSON.stringify([page, locale, CATALOGS[locale], form]))
      .digest('hex')
      .slice(0, 16);
    versions.set(id, version);
  }
  return version;
};

export interface LinkEvidenceInput {
  page: LinkPage;
  link: OpenedLink;
  locale: Locale;
  /** The page's form, described (its field names and values). */
  form: string;
  client: ClientOfRequest;
  /** The deployment setting: keep the client's address and user agent. */
  keepClient: boolean;
}

export const linkEvidence = ({ page, link, locale, form, client, keepClient }: LinkEvidenceInput): LinkEvidence => ({
  via: page,
  keyId: link.keyId,
  issuedAt: new Date(link.issuedAt * 1000).toISOString(),
  pageVersion: pageVersion(page, locale, form),
  ...(keepClient && client.ipAddress ? { ipAddress: client.ipAddress } : {}),
  ...(keepClient && client.userAgent ? { userAgent: client.userAgent } : {}),
});
