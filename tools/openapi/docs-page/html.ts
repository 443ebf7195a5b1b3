/** HTML text from document text: everything the document says is shown, never interpreted. */
export const escapeHtml = (text: unknown): string =>
  String(text).replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] as string,
  );

/**
 * Escaped text with a line-break opportunity (`<wbr>`) after each `/`, `,` and `:` and before
 * each `.`: paths, dotted names and JSON snippets may then wrap on a phone where a reader expects
 * it, and never inside a word (the style forbids breaking anywhere else).
 */
export const withBreakPoints = (text: string): string =>
  text
    .split(/(?<=[/,:])|(?=\.)/)
    .map(escapeHtml)
    .join('<wbr>');

/**
 * A schema's or response's name (PascalCase, up to about 40 letters) with a break opportunity
 * before each inner capital: on a phone `InvalidArgumentOrFailedPreconditionError` wraps between
 * its words instead of widening the page.
 */
export const nameWithBreakPoints = (name: string): string =>
  name
    .split(/(?<=[a-z0-9])(?=[A-Z])/)
    .map(escapeHtml)
    .join('<wbr>');
