/** HTML text from document text: everything the document says is shown, never interpreted. */
export const escapeHtml = (text: unknown): string =>
  String(text).replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] as string,
  );
