/*
 * HTML that escapes by default: a tagged template whose every interpolated value is escaped,
 * unless it is itself the result of the tag (or of `constant`). Text from the policy, ids, anything
 * a person or an organization wrote can only ever become text, never markup. There is no way to
 * pass a runtime string through unescaped.
 */

const BRAND = Symbol('html');

/** A piece of markup built by `html` or `constant`: safe to place as it is. */
export interface Html {
  readonly [BRAND]: true;
  readonly text: string;
}

const make = (text: string): Html => ({ [BRAND]: true, text }) as Html;

const isHtml = (value: unknown): value is Html =>
  typeof value === 'object' && value !== null && (value as Partial<Html>)[BRAND] === true;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or as a double- or single-quoted attribute value. */
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (char) => ESCAPES[char] as string);

/** A value placed in a template: markup stays, a list is each of its parts, nothing is nothing, the rest is escaped text. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

const render = (value: HtmlValue): string => {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (isHtml(value)) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
};

/** The tag: html`<p>${text}</p>` escapes `text`. */
export const html = (strings: TemplateStringsArray, ...values: HtmlValue[]): Html => {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += render(value) + (strings[index + 1] ?? '');
  });
  return make(text);
};

/**
 * Markup written in the code itself (the style sheet): a template with no interpolation at all,
 * so that nothing from outside can reach it.
 */
export const constant = (strings: TemplateStringsArray, ...values: never[]): Html => {
  if (values.length > 0 || strings.length !== 1) throw new Error('constant`...` takes no interpolation');
  return make(strings[0] as string);
};

export const toText = (markup: Html): string => markup.text;
