import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { apiPages } from '#local/api-pages.js';
import { renderDocsPage } from '#tools/openapi/docs-page.js';
import { buildOpenApiDocument, type OpenApiDocument } from '#tools/openapi/document.js';
import { OPERATIONS } from '#tools/openapi/operations.js';

const doc = buildOpenApiDocument();
const routes = await apiPages();
const page = routes.find((route) => route.path === '/docs')?.body ?? '';
// What a reader sees: the page without tags and entities.
const text = page
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

  test('needs no network and runs no script: every resource is inline, and the policy says so', () => {
    expect(page).not.toMatch(/<script|<link|<img|<iframe|\ssrc=|url\(|@import/i);
    for (const [, href] of page.matchAll(/href="([^"]+)"/g)) expect(href).toMatch(/^(#|\/openapi\.json$)/);
    const style = page.match(/<style>([\s\S]*?)<\/style>/)?.[1] ?? '';
    const hash = createHash('sha256').update(style).digest('base64');
    expect(page).toContain(`content="default-src 'none'; style-src 'sha256-${hash}'"`);
  });

  test('escapes text from the document', () => {
    const hostile = structuredClone(doc);
    hostile.info.title = '<img src=x onerror=alert(1)>';
    hostile.paths['/v2/notifications/config/set'].post.summary = '</section><script>alert(1)</script>';
    const rendered = renderDocsPage(hostile);
    expect(rendered).not.toContain('<img src=x');
    expect(rendered).not.toContain('<script>');
    expect(rendered).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
