import MarkdownIt from 'markdown-it';
import { withBreakPoints } from './html.js';

/**
 * The descriptions' markdown, rendered as CommonMark (with tables) by markdown-it, so that the
 * page reads like any other rendering of the document: a single newline inside a paragraph is a
 * space. The text comes from the document, so it may never become markup: raw HTML is escaped
 * (`html: false`), links keep markdown-it's check of their scheme (no `javascript:`), and images
 * are not rendered (the page loads no resource). Headings are off: a description sits under the
 * page's own headings and may not break their order.
 */
const md = new MarkdownIt({ html: false, linkify: false, typographer: false }).disable([
  'image',
  'heading',
  'lheading',
]);

md.renderer.rules.code_inline = (tokens, index) => `<code>${withBreakPoints(tokens[index]?.content ?? '')}</code>`;
// A table wider than a phone scrolls inside its own box instead of widening the page.
md.renderer.rules.table_open = () => '<div class="scroll"><table>\n';
md.renderer.rules.table_close = () => '</table></div>\n';

export const markdown = (text: string | undefined): string => (text ? md.render(text) : '');
