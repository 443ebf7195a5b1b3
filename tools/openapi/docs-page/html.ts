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
