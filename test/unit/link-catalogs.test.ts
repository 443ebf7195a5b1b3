import { describe, expect, test } from '@jest/globals';
import IntlMessageFormat from 'intl-messageformat';
import { acceptedLanguages, canonicalTag, LOCALES, negotiateLocale } from '#shared/api/locales.js';
import { CATALOGS } from '#shared/links/i18n/catalogs/index.js';
import { wordsFor } from '#shared/links/i18n/words.js';

// The pages' message catalogs (shared/links/i18n): every language has exactly English's keys, and
// each message the same placeholders (names and kinds, read from intl-messageformat's own parse);
// and which language a request gets.

type Element = { type: number; value?: unknown; options?: Record<string, { value: Element[] }>; children?: Element[] };

// The parser's element types: 0 literal, 7 `#`; the others name a placeholder (8: a tag).
const LITERAL = 0;
const POUND = 7;

/** A message's placeholders, as `name:type`, with those inside select, plural and tag branches. */
const placeholders = (message: string, locale: string): string[] => {
  const found = new Set<string>();
  const walk = (elements: Element[]) => {
    for (const element of elements) {
      if (element.type !== LITERAL && element.type !== POUND) found.add(`${String(element.value)}:${element.type}`);
      for (const option of Object.values(element.options ?? {})) walk(option.value);
      walk(element.children ?? []);
    }
  };
  walk(new IntlMessageFormat(message, locale).getAst() as unknown as Element[]);
  return [...found].sort();
};

/** The options of each select in a message, as `name:option,option`. */
const selectOptions = (message: string, locale: string): string[] => {
  const found: string[] = [];
  const walk = (elements: Element[]) => {
    for (const element of elements) {
      if (element.options) found.push(`${String(element.value)}:${Object.keys(element.options).sort().join(',')}`);
      for (const option of Object.values(element.options ?? {})) walk(option.value);
      walk(element.children ?? []);
    }
  };
  walk(new IntlMessageFormat(message, locale).getAst() as unknown as Element[]);
  return found.sort();
};

const english = CATALOGS.en;

describe.each(LOCALES.filter((locale) => locale !== 'en'))('the %s catalog', (locale) => {
  const catalog = CATALOGS[locale] as Record<string, string>;

  test('has exactly the keys of the English one', () => {
    expect(Object.keys(catalog).sort()).toEqual(Object.keys(english).sort());
  });

  test('has, in every message, the placeholders and select options of the English one', () => {
    for (const [key, message] of Object.entries(english)) {
      const translated = catalog[key];
      if (translated === undefined) continue;
      expect({ key, placeholders: placeholders(translated, locale) }).toEqual({
        key,
        placeholders: placeholders(message, 'en'),
      });
      expect({ key, options: selectOptions(translated, locale) }).toEqual({
        key,
        options: selectOptions(message, 'en'),
      });
    }
  });
});

test('no message holds a straight apostrophe (ICU quoting), or is empty', () => {
  for (const locale of LOCALES) {
    for (const [key, message] of Object.entries(CATALOGS[locale])) {
      expect({ locale, key, apostrophe: message.includes("'") }).toEqual({ locale, key, apostrophe: false });
      expect(message.trim()).not.toBe('');
    }
  }
});

test('every message of every language formats with the placeholders English gives it', () => {
  for (const locale of LOCALES) {
    const words = wordsFor(locale);
    expect(words.t('preferences.default', { value: words.valueInline('MINE') })).not.toMatch(/[{}]/);
    expect(words.t('reason.days', { n: 3 })).toMatch(/3|٣/);
    expect(words.channel('email')).not.toBe('');
    expect(words.weekday('mon', 'long')).not.toBe('');
  }
});

describe('which language a page speaks', () => {
  test('the link’s locale first, then Accept-Language, then the organization’s, then English', () => {
    expect(negotiateLocale({ link: 'de', acceptLanguage: 'fr-FR,fr;q=0.9', organization: 'es' })).toBe('de');
    expect(negotiateLocale({ link: 'it', acceptLanguage: 'fr-FR,fr;q=0.9', organization: 'es' })).toBe('fr');
    expect(negotiateLocale({ acceptLanguage: 'it, sv;q=0.5', organization: 'es' })).toBe('es');
    expect(negotiateLocale({ acceptLanguage: 'it' })).toBe('en');
    expect(negotiateLocale({})).toBe('en');
  });

  test('tags by their language: any Portuguese reads Brazilian, regions and scripts are read through', () => {
    expect(negotiateLocale({ link: 'pt-PT' })).toBe('pt-BR');
    expect(negotiateLocale({ link: 'PT-br' })).toBe('pt-BR');
    expect(negotiateLocale({ link: 'ar-EG' })).toBe('ar');
    expect(negotiateLocale({ link: 'ja-JP' })).toBe('ja');
    expect(negotiateLocale({ link: 'en-GB' })).toBe('en');
  });

  test('Accept-Language by weight, ties in order; q=0 and * are no choice; garbage is none', () => {
    expect(acceptedLanguages('fr;q=0.5, ja;q=0.8, de')).toEqual(['de', 'ja', 'fr']);
    expect(negotiateLocale({ acceptLanguage: 'ar;q=0, *;q=0.9, es;q=0.1' })).toBe('es');
    expect(negotiateLocale({ acceptLanguage: 'x;q=abc, <script>, ja' })).toBe('ja');
    expect(negotiateLocale({ acceptLanguage: `${'a,'.repeat(10_000)}de` })).toBe('en');
  });

  test('a tag is canonical BCP 47 or nothing', () => {
    expect(canonicalTag('pt-br')).toBe('pt-BR');
    expect(canonicalTag('not a tag')).toBeUndefined();
    expect(canonicalTag('x'.repeat(40))).toBeUndefined();
    expect(canonicalTag('')).toBeUndefined();
  });

  test('the pages name their language and direction', () => {
    expect(wordsFor('ar').dir).toBe('rtl');
    expect(wordsFor('ja').dir).toBe('ltr');
  });
});
