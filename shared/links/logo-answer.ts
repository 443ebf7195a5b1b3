import type { PageAnswer } from '#shared/platform/public-page.js';
import type { LinkState } from './link-state.js';
import { LOGO_PARAMETER } from './pages/brand.js';

/*
 * A page's logo, answered by the page's own route (`?logo=<version>`): the page loads nothing from
 * elsewhere, and its CSP allows images from itself only. The version is a digest of the logo's
 * bytes, so a URL always means the same image and the browser may keep it long (privately: the
 * URL carries the link's token). Served as the type branding/set checked its bytes against, with
 * nosniff (the pages' own headers).
 */

const LOGO_CACHE = 'private, max-age=31536000, immutable';

/** Whether a page request asks for the logo rather than the page. */
export const asksForLogo = (query: Readonly<Record<string, string>>, method: string): boolean =>
  method === 'GET' && Object.hasOwn(query, LOGO_PARAMETER);

/** The logo of the link's organization at that version; undefined when it has none, or another. */
export const logoAnswer = (state: LinkState, query: Readonly<Record<string, string>>): PageAnswer | undefined => {
  const logo = state.branding?.branding.logo;
  if (!logo || state.branding?.logoVersion !== query[LOGO_PARAMETER]) return undefined;
  return {
    status: 200,
    body: logo.data,
    base64: true,
    headers: { 'content-type': logo.contentType, 'cache-control': LOGO_CACHE },
  };
};
