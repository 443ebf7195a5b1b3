import { html } from './html.js';
import { page } from './layout.js';

/*
 * The pages that say the same for every request of a route, rendered once per container: the
 * 404 page of every token failure (unknown, altered, expired, revoked: byte for byte the same, so
 * that it tells none of them apart), the 405 page, and the page of a failure on our side.
 */

export const NOT_FOUND_PAGE = page(
  'This link does not work',
  html`<p>The link may have expired, or been replaced by a newer one. Use the link in a more recent email, or change
your notification settings where you use the service.</p>`,
);

export const METHOD_NOT_ALLOWED_PAGE = page(
  'This request is not supported',
  html`<p>This page can only be opened, or sent with its own form.</p>`,
);

export const TRY_AGAIN_PAGE = page(
  'Something went wrong',
  html`<p>Nothing was changed. Please try again in a minute.</p>`,
);

/** What the public edge answers itself (shared/edge/public-route.ts). */
export const FIXED_PAGES = {
  notFound: NOT_FOUND_PAGE,
  methodNotAllowed: METHOD_NOT_ALLOWED_PAGE,
  tryAgain: TRY_AGAIN_PAGE,
} as const;

/** A 400 page: what was wrong with the request, in words that name nothing of it. */
export const badRequestPage = (reason: string): string =>
  page('This request could not be understood', html`<p>${reason} Nothing was changed.</p>`);
