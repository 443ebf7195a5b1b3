import { createHash } from 'node:crypto';
import type { OpenApiDocument } from '#tools/openapi/document.js';
import { escapeHtml, nameWithBreakPoints, withBreakPoints } from './docs-page/html.js';
import { markdown } from './docs-page/markdown.js';
import { navigation, type PageOperation } from './docs-page/navigation.js';
import { dataView, examplesView, jsonBlock, schemaAnchor, schemaView } from './docs-page/schema-view.js';
import { SEARCH_SCRIPT } from './docs-page/search-script.js';
import { STYLE } from './docs-page/style.js';

/**
 * A readable, self-contained HTML rendering of the OpenAPI document, rendered at build time: no
 * external resource, and one inline script, the search, which the page does not need to be read.
 * Its Content-Security-Policy admits exactly its own style sheet and script, by their hashes, so
 * the page works offline, cannot leak anything, and no text of the document can run as script.
 */

type Json = OpenApiDocument;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

const operationView = (doc: Json, { path, method, operation }: PageOperation): string => {
  const body = operation.requestBody?.content?.['application/json'];
  const responses = Object.entries(operation.responses as Record<string, Json>).map(([code, response]) => {
    const content = response.content?.['application/json'] ?? {};
    return `<tr><td class="code c${escapeHtml(code.charAt(0))}">${escapeHtml(code)}</td><td>${markdown(response.description)}
      ${content.schema ? schemaView(doc, content.schema) : ''}${code === '200' ? dataView(doc, content.schema, ['result', 'data']) : ''}${examplesView(content.examples, content.example)}</td></tr>`;
  });
  const id = escapeHtml(operation.operationId);
  const methodPath = `${escapeHtml(method.toUpperCase())} ${escapeHtml(path)}`;
  // data-name, data-kind and data-path: what the search looks for.
  return `<section class="operation" id="${id}" data-name="${id}" data-kind="operation" data-path="${methodPath}">
  <h2><span class="method">${escapeHtml(method.toUpperCase())}</span> <code>${withBreakPoints(path)}</code></h2>
  <p class="summary">${escapeHtml(operation.summary ?? '')}</p>
  ${markdown(operation.description)}
  <h3>Request body <code>{"data": …}</code></h3>
  ${body ? `${schemaView(doc, body.schema)}${dataView(doc, body.schema, ['data'])}${examplesView(body.examples, body.example)}` : '<p>None.</p>'}
  <h3>Responses</h3>
  <table class="responses stack"><tbody>${responses.join('\n')}</tbody></table>
</section>`;
};

export const renderDocsPage = (doc: OpenApiDocument): string => {
  const operations: PageOperation[] = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation: operation as Json })),
  );
  const schemas = Object.entries((doc.components?.schemas ?? {}) as Record<string, Json>);
  const security = Object.entries((doc.components?.securitySchemes ?? {}) as Record<string, Json>);
  const responses = Object.entries((doc.components?.responses ?? {}) as Record<string, Json>);
  const title = `${doc.info.title} ${doc.info.version}`;
  const policy = `default-src 'none'; style-src ${sha256(STYLE)}; script-src ${sha256(SEARCH_SCRIPT)}`;

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
${navigation(doc.info.title, operations)}
<main id="main">
<h1>${escapeHtml(title)}</h1>
<section id="overview">
<h2>Overview</h2>
${markdown(doc.info.description)}
<h3>Servers</h3>
<ul>${(doc.servers ?? []).map((server: Json) => `<li><code>${withBreakPoints(server.url)}</code>: ${escapeHtml(server.description ?? '')}</li>`).join('')}</ul>
<p>Machine-readable: <a href="/openapi.json">openapi.json</a> (OpenAPI ${escapeHtml(doc.openapi)}).</p>
</section>
<section id="authentication">
<h2>Authentication</h2>
<p>Every request sends all of these headers together:</p>
<table class="headers stack"><tbody>${security
    .map(
      ([name, scheme]) =>
        `<tr><td><code>${escapeHtml(scheme.name)}</code></td><td>${escapeHtml(name)}</td><td>${markdown(scheme.description)}</td></tr>`,
    )
    .join('')}</tbody></table>
</section>
${operations.map((operation) => operationView(doc, operation)).join('\n')}
<section id="other-routes" class="operation">
<h2>Other routes</h2>
${responses
  .map(([name, response]) => {
    const content = response.content?.['application/json'] ?? {};
    return `<div id="response-${escapeHtml(name)}" data-name="${escapeHtml(name)}" data-kind="response"><h3>${nameWithBreakPoints(name)}</h3>${markdown(response.description)}${content.schema ? schemaView(doc, content.schema) : ''}${examplesView(content.examples, content.example)}</div>`;
  })
  .join('\n')}
</section>
<section id="schemas" class="operation">
<h2>Schemas</h2>
${schemas
  .map(
    ([name, schema]) =>
      `<div id="${escapeHtml(schemaAnchor(name))}" data-name="${escapeHtml(name)}" data-kind="schema"><h3>${nameWithBreakPoints(name)}</h3>${schemaView(doc, schema)}<details><summary>JSON Schema</summary>${jsonBlock(schema)}</details></div>`,
  )
  .join('\n')}
</section>
</main>
<script>${SEARCH_SCRIPT}</script>
</body>
</html>
`;
};
