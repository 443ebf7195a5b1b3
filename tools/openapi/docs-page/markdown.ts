import { escapeHtml } from './html.js';

/** Inline markdown of the descriptions: `code`, **bold**. Escapes first. */
const inline = (text: string): string =>
  escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');

/** Block markdown of the descriptions: paragraphs, line breaks and pipe tables. */
export const markdown = (text: string | undefined): string => {
  if (!text) return '';
  return text
    .split(/\n\s*\n/)
    .map((block) => {
      const lines = block.split('\n');
      if (lines.every((line) => line.trim().startsWith('|'))) {
        const cells = (line: string) =>
          line
            .trim()
            .replace(/^\||\|$/g, '')
            .split('|')
            .map((cell) => cell.trim());
        const [head = '', , ...rows] = lines;
        return `<table><thead><tr>${cells(head)
          .map((cell) => `<th>${inline(cell)}</th>`)
          .join('')}</tr></thead><tbody>${rows
          .map(
            (row) =>
              `<tr>${cells(row)
                .map((cell) => `<td>${inline(cell)}</td>`)
                .join('')}</tr>`,
          )
          .join('')}</tbody></table>`;
      }
      return `<p>${lines.map(inline).join('<br>')}</p>`;
    })
    .join('\n');
};
