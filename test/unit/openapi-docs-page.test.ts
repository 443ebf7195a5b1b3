import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { apiPages } from '#local/api-pages.js';
import { renderDocsPage } from '#tools/openapi/docs-page.js';
import { buildOpenApiDocument, type OpenApiDocument } from '#tools/openapi/document.js';
import { OPERATIONS } from '#tools/openapi/operations.js';

const doc = buildOpenApiDocument();
const routes = await apiPages();
const page = routes.find((route) => route.path === '/docs')?.body ?? '';
// What a reader sees: the page without tags and entities (a <wbr> only lets a line break there).
const text = page
  .replace(/<wbr>/g, '')
  .replace(/<[^>]+>/g, ' ')
  .replace(/&quot;/g, '"')
  .replace(/&#39;/g, "'")
  .replace(/&lt;/g, '<')
  .replace(/&gt;/g, '>')
  .replace(/&amp;/g, '&')
  .replace(/\s+/g, ' ');

describe('the pages the twin serves beside the API', () => {
  test('serves an index, the document as JSON and the page as HTML, on GET', () => {
    expect(routes.map(({ method, path, contentType }) => ({ method, path, contentType }))).toEqual([
      { method: 'GET', path: '/', contentType: 'application/json' },
      { method: 'GET', path: '/openapi.json', contentType: 'application/json' },
      { method: 'GET', path: '/docs', contentType: 'text/html; charset=utf-8' },
    ]);
    expect(JSON.parse(routes[1]?.body ?? '')).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  test('the index points to the page, the document and every operation', () => {
    const index = JSON.parse(routes[0]?.body ?? '');
    expect(index).toMatchObject({ service: doc.info.title, docs: '/docs', openapi: '/openapi.json' });
    expect(index.operations).toEqual(
      Object.fromEntries(OPERATIONS.map((operation) => [operation.operationId, `POST ${operation.path}`])),
    );
    for (const path of [index.docs, index.openapi]) expect(routes.map((route) => route.path)).toContain(path);
  });
});

describe('the docs page', () => {
  test('shows every operation with its fields, limits, examples and error codes', () => {
    for (const operation of OPERATIONS) {
      const post = doc.paths[operation.path].post as OpenApiDocument;
      expect(page).toContain(`id="${operation.operationId}"`);
      expect(text).toContain(`POST ${operation.path}`);
      expect(text).toContain(operation.summary);
      for (const field of doc.components.schemas[`${operation.name}Request`].required as string[]) {
        expect(text).toContain(`${field} required`);
      }
      for (const code of Object.keys(post.responses)) expect(text).toMatch(new RegExp(` ${code} `));
      for (const example of Object.values(operation.examples)) expect(text).toContain(`Example: ${example.summary}`);
      expect(text).toContain(operation.message);
    }
    expect(text).toContain('userIds required array of string 1 to 1000 items; each item: 1 to 256 characters');
    expect(text).toContain('documentIds array of string 1 to 30 items');
    expect(text).toContain('x-service-api-key');
    expect(text).toContain('x-service-auth-token');
    expect(text).toContain('| INVALID_ARGUMENT | 400 |'.replace(/\|/g, ' ').replace(/\s+/g, ' ').trim());
  });

  test('lists every schema and the unknown-route answer, with working anchors', () => {
    for (const name of Object.keys(doc.components.schemas)) expect(page).toContain(`id="schema-${name}"`);
    const anchors = [...page.matchAll(/href="#([^"]+)"/g)].map((match) => match[1]);
    for (const anchor of anchors) expect(page).toContain(`id="${anchor}"`);
    expect(text).toContain('UnknownRoute');
    expect(text).toContain('No route for POST /v2/unknown.');
  });

  test('needs no network and runs only its own inline script: every resource is inline, and the policy says so', () => {
    expect(page).not.toMatch(/<link|<img|<iframe|\ssrc=|url\(|@import/i);
    for (const [, href] of page.matchAll(/href="([^"]+)"/g)) expect(href).toMatch(/^(#|\/openapi\.json$)/);
    const hash = (text: string) => createHash('sha256').update(text).digest('base64');
    const styles = [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1] ?? '');
    const scripts = [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1] ?? '');
    expect([styles.length, scripts.length, page.match(/<script/g)?.length]).toEqual([1, 1, 1]);
    expect(page).toContain(
      `content="default-src 'none'; style-src 'sha256-${hash(styles[0] ?? '')}'; script-src 'sha256-${hash(scripts[0] ?? '')}'"`,
    );
    // No inline handler either: the policy would refuse it, and the page needs none.
    expect(page).not.toMatch(/<[^>]*\son[a-z]+=/i);
  });

  test('escapes text from the document', () => {
    const hostile = structuredClone(doc);
    hostile.info.title = '<img src=x onerror=alert(1)>';
    hostile.paths['/v2/notifications/config/set'].post.summary = '</section><script>alert(1)</script>';
    const rendered = renderDocsPage(hostile);
    expect(rendered).not.toContain('<img src=x');
    expect(rendered).not.toContain('<script>alert');
    expect(rendered).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('the descriptions, rendered as markdown', () => {
  // A description's paragraphs as the page renders them.
  const paragraphs = (rendered: string) => [...rendered.matchAll(/<p>([\s\S]*?)<\/p>/g)].map((match) => match[1] ?? '');

  test('a newline inside a paragraph is a space, not a line break', () => {
    const reset = doc.paths['/v2/notifications/config/reset'].post.description as string;
    expect(reset).toContain("from each user's entry\non each named document");
    expect(page).not.toContain('<br');
    expect(paragraphs(page).some((paragraph) => paragraph.includes('entry\non each named document'))).toBe(true);
  });

  test('tables, code and emphasis render; code breaks only at slashes, dots, commas and colons', () => {
    expect(page).toMatch(/<th>status<\/th>\s*<th>HTTP<\/th>/);
    expect(page).toMatch(/<td>INVALID_ARGUMENT<\/td>\s*<td>400<\/td>/);
    expect(page).toContain('<strong>Protocol.</strong>');
    expect(page).toContain('<code>components<wbr>.responses<wbr>.UnknownRoute</code>');
    expect(page).toContain('<code>migration:<wbr>&lt;migrationId&gt;</code>');
  });

  test('text from the document never becomes markup: no HTML, no script links, no images; links are kept', () => {
    const hostile = structuredClone(doc);
    hostile.info.description =
      'A <img src=x onerror=alert(1)> and <b>bold</b>\n[run](javascript:alert(1)) ![pixel](https://tracker.example/p.png)\n\n[guide](https://example.com/guide)';
    hostile.paths['/v2/notifications/config/set'].post.description = '<script>alert(2)</script>';
    hostile.components.schemas.SetConfigRequest.properties.organizationId.description = '<iframe src=x>';
    const rendered = renderDocsPage(hostile);
    expect(rendered).not.toMatch(/<(img|b|iframe)[\s>]|<script>alert|href="javascript:|<[a-z]+[^>]*\ssrc=/);
    expect(rendered).toContain('A &lt;img src=x onerror=alert(1)&gt; and &lt;b&gt;bold&lt;/b&gt;');
    expect(rendered).toContain('&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(rendered).toContain('&lt;iframe src=x&gt;');
    expect(rendered).toContain('<a href="https://example.com/guide">guide</a>');
  });
});
