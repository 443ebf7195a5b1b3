/*
 * The languages the pages speak (docs/api.md, The pages' languages), and which one a request gets:
 * the link's locale (links/create's `locale`), else the browser's Accept-Language, else the
 * organization's default, else English. Each source is a BCP 47 tag; the first that names a
 * shipped language wins (any Portuguese reads the Brazilian catalog, any English the English one).
 */

export const LOCALES = ['en', 'de', 'fr', 'es', 'pt-BR', 'ja', 'ar'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

/** The languages written right to left. */
const RIGHT_TO_LEFT: ReadonlySet<Locale> = new Set(['ar']);
export const directionOf = (locale: Locale): 'ltr' | 'rtl' => (RIGHT_TO_LEFT.has(locale) ? 'rtl' : 'ltr');

/** The longest tag links/create accepts (BCP 47's own advice for buffers is 35 characters). */
export const MAX_LOCALE_LENGTH = 35;

/** `tag` in its canonical case and form, or undefined when it is no well-formed BCP 47 tag. */
export const canonicalTag = (tag: string): string | undefined => {
  if (tag.length === 0 || tag.length > MAX_LOCALE_LENGTH || !/^[A-Za-z0-9-]+$/.test(tag)) return undefined;
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
};

/** The shipped language a tag asks for, if any: by its language subtag. */
export const shippedLocale = (tag: string | undefined): Locale | undefined => {
  const canonical = tag === undefined ? undefined : canonicalTag(tag);
  if (canonical === undefined) return undefined;
  const language = new Intl.Locale(canonical).language;
  if (language === 'pt') return 'pt-BR';
  return LOCALES.find((locale) => locale === language);
};

// A header longer than this, or with more ranges, is read only that far: a browser sends a few.
const MAX_HEADER_LENGTH = 512;
const MAX_RANGES = 16;

/** The language ranges of an Accept-Language header, the most wanted first (RFC 9110 12.5.4); `*` and q=0 left out. */
export const acceptedLanguages = (header: string | undefined): string[] => {
  if (!header) return [];
  return header
    .slice(0, MAX_HEADER_LENGTH)
    .split(',')
    .slice(0, MAX_RANGES)
    .map((part, index) => {
      const [range = '', ...parameters] = part.split(';').map((piece) => piece.trim());
      const q = parameters.find((parameter) => /^q=/i.test(parameter));
      const weight = q === undefined ? 1 : Number(q.slice(2));
      return { range, weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter(({ range, weight }) => range !== '' && range !== '*' && weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
    .map(({ range }) => range);
};

export interface LocaleSources {
  /** The link's own locale (links/create's `locale`). */
  link?: string | undefined;
  /** The request's Accept-Language header. */
  acceptLanguage?: string | undefined;
  /** The organization's default language. */
  organization?: string | undefined;
}

/** The language of a page: the first source that names a shipped one, else English. */
export const negotiateLocale = ({ link, acceptLanguage, organization }: LocaleSources): Locale =>
  shippedLocale(link) ??
  acceptedLanguages(acceptLanguage).reduce<Locale | undefined>(
    (found, range) => found ?? shippedLocale(range),
    undefined,
  ) ??
  shippedLocale(organization) ??
  DEFAULT_LOCALE;
