import type { OpenApiDocument } from '#tools/openapi/document.js';
import { escapeHtml, withBreakPoints } from './html.js';

/** An operation of the document, where the page lists it. */
export interface PageOperation {
  path: string;
  method: string;
  operation: OpenApiDocument;
}

/**
 * The sidebar: the search box and the table of contents. The search box is `hidden` until the
 * search script shows it, so that a reader without scripts sees no control that does nothing.
 * The contents are a <details>, closed in the markup: the style shows them beside the content on
 * a wide screen and leaves them folded above it on a phone, both without script.
 */
export const navigation = (title: string, operations: PageOperation[]): string => {
  const link = (href: string, label: string) => `<li><a href="${escapeHtml(href)}">${label}</a></li>`;
  return `<nav aria-label="Contents">
  <p class="service">${escapeHtml(title)}</p>
  <search id="search" hidden>
    <label for="search-field">Search</label>
    <input type="search" id="search-field" placeholder="name, path or word" autocomplete="off" spellcheck="false" aria-controls="search-results" aria-describedby="search-status">
    <p id="search-status" role="status"></p>
    <ol id="search-results" aria-label="Search results"></ol>
  </search>
  <details class="toc">
    <summary>Contents</summary>
    <ul>
    ${[
      link('#overview', 'Overview'),
      link('#authentication', 'Authentication'),
      ...operations.map(({ path, method, operation }) =>
        // The operation's name first: paths share long prefixes, so a narrow column cut them all alike.
        link(
          `#${operation.operationId}`,
          `${escapeHtml(operation.operationId)}<span class="path">${escapeHtml(method.toUpperCase())} ${withBreakPoints(path)}</span>`,
        ),
      ),
      link('#other-routes', 'Other routes'),
      link('#schemas', 'Schemas'),
      link('/openapi.json', 'openapi.json'),
    ].join('\n    ')}
    </ul>
  </details>
</nav>`;
};
