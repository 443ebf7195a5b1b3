import { DEFAULT_LOCALE, LOCALES, type Locale } from '#shared/api/locales.js';
import type { FixedPages } from '#shared/platform/public-page.js';
import { type Said, type Words, wordsFor } from '../i18n/words.js';
import type { PageBrand } from './brand.js';
import { html } from './html.js';
import { page } from './layout.js';

/*
 * The pages that say the same for every request of a route in a language, rendered once per
 * container and language: the 404 page of every token failure (unknown, altered, expired,
 * revoked: byte for byte the same in a language, so that it tells none of them apart), the 405
 * page, and the page of a failure on our side.
 */

const render = (words: Words): FixedPages => ({
  notFound: page(words, words.t('notFound.title'), html`<p>${words.t('notFound.body')}</p>`),
  methodNotAllowed: page(words, words.t('methodNotAllowed.title'), html`<p>${words.t('methodNotAllowed.body')}</p>`),
  tryAgain: page(words, words.t('tryAgain.title'), html`<p>${words.t('tryAgain.body')}</p>`),
});

const rendered = new Map<Locale, FixedPages>();

/** The fixed pages in a language. */
export const fixedPagesIn = (locale: Locale): FixedPages => {
  let pages = rendered.get(locale);
  if (!pages) {
    pages = render(wordsFor(locale));
    rendered.set(locale, pages);
  }
  return pages;
};

/** The English fixed pages, the language of a request that asks for none the service speaks. */
export const FIXED_PAGES: FixedPages = fixedPagesIn(DEFAULT_LOCALE);
export const NOT_FOUND_PAGE = FIXED_PAGES.notFound;

/** Every language's fixed pages (the tests and the bench read them). */
export const ALL_FIXED_PAGES = (): Record<Locale, FixedPages> =>
  Object.fromEntries(LOCALES.map((locale) => [locale, fixedPagesIn(locale)])) as Record<Locale, FixedPages>;

/** A 400 page: what was wrong with the request, in words that name nothing of it. */
export const badRequestPage = (words: Words, reason: Said, brand?: PageBrand): string =>
  page(
    words,
    words.t('badRequest.title'),
    html`<p>${words.t('badRequest.body', { reason: reason(words) })}</p>`,
    brand,
  );
