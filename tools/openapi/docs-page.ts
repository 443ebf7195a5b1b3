import { createHash } from 'node:crypto';
import type { OpenApiDocument } from '#tools/openapi/document.js';
import { escapeHtml } from './docs-page/html.js';
import { markdown } from './docs-page/markdown.js';
import { dataView, examplesView, jsonBlock, schemaAnchor, schemaView } from './docs-page/schema-view.js';
import { STYLE } from './docs-page/style.js';

/**
 * A readable, self-contained HTML rendering of the OpenAPI document: rendered on the server,
 * no script, no external resource (its Content-Security-Policy forbids both), so it works
 * offline and cannot leak anything.
 */

type Json = OpenApiDocument;

const operationView = (doc: Json, path: string, method: string, operation: Json): string => {
  const body = operation.requestBody?.content?.['application/json'];
  const responses = Object.entries(operation.responses as Record<string, Json>).map(([code, response]) => {
    const content = response.content?.['application/json'] ?? {};
    return `<tr><td class="code c${escapeHtml(code.charAt(0))}">${escapeHtml(code)}</td><td>${markdown(response.description)}
      ${content.schema ? schemaView(doc, content.schema) : ''}${code === '200' ? dataView(doc, content.schema, ['result', 'data']) : ''}${examplesView(content.examples, content.example)}</td></tr>`;
  });
  return `<section class="operation" id="${escapeHtml(operation.operationId)}">
  <h2><span class="method">${escapeHtml(method.toUpperCase())}</span> <code>${escapeHtml(path)}</code></h2>
  <p class="summary">${escapeHtml(operation.summary ?? '')}</p>
  ${markdown(operation.description)}
  <h3>Request body <code>{"data": …}</code></h3>
  ${body ? `${schemaView(doc, body.schema)}${dataView(doc, body.schema, ['data'])}${examplesView(body.examples, body.example)}` : '<p>None.</p>'}
  <h3>Responses</h3>
  <table class="responses"><tbody>${responses.join('\n')}</tbody></table>
</section>`;
};

export const renderDocsPage = (doc: OpenApiDocument): string => {
  const operations = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation: operation as Json })),
  );
  const schemas = Object.entries((doc.components?.schemas ?? {}) as Record<string, Json>);
  const security = Object.entries((doc.components?.securitySchemes ?? {}) as Record<string, Json>);
  const responses = Object.entries((doc.components?.responses ?? {}) as Record<string, Json>);
  const styleHash = createHash('sha256').update(STYLE).digest('base64');
  const title = `${doc.info.title} ${doc.info.version}`;

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-${styleHash}'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<nav>
  <strong>${escapeHtml(doc.info.title)}</strong>
  <a href="#overview">Overview</a>
  <a href="#authentication">Authentication</a>
  ${operations
    .map(
      // The operation's name first: paths share long prefixes, so a narrow column cut them all alike.
      ({ path, method, operation }) =>
        `<a href="#${escapeHtml(operation.operationId)}">${escapeHtml(operation.operationId)}<span class="path">${escapeHtml(method.toUpperCase())} ${escapeHtml(path).replace(/\//g, '/<wbr>')}</span></a>`,
    )
    .join('\n  ')}
  <a href="#other-routes">Other routes</a>
  <a href="#schemas">Schemas</a>
  <a href="/openapi.json">openapi.json</a>
</nav>
<main>
<h1>${escapeHtml(title)}</h1>
<section id="overview">
${markdown(doc.info.description)}
<h3>Servers</h3>
<ul>${(doc.servers ?? []).map((server: Json) => `<li><code>${escapeHtml(server.url)}</code>: ${escapeHtml(server.description ?? '')}</li>`).join('')}</ul>
<p>Machine-readable: <a href="/openapi.json">openapi.json</a> (OpenAPI ${escapeHtml(doc.openapi)}).</p>
</section>
<section id="authentication">
<h2>Authentication</h2>
<p>Every request sends all of these headers together:</p>
<table><tbody>${security
    .map(
      ([name, scheme]) =>
        `<tr><td><code>${escapeHtml(scheme.name)}</code></td><td>${escapeHtml(name)}</td><td>${markdown(scheme.description)}</td></tr>`,
    )
    .join('')}</tbody></table>
</section>
${operations.map(({ path, method, operation }) => operationView(doc, path, method, operation)).join('\n')}
<section id="other-routes" class="operation">
<h2>Other routes</h2>
${responses
  .map(([name, response]) => {
    const content = response.content?.['application/json'] ?? {};
    return `<h3>${escapeHtml(name)}</h3>${markdown(response.description)}${content.schema ? schemaView(doc, content.schema) : ''}${examplesView(content.examples, content.example)}`;
  })
  .join('\n')}
</section>
<section id="schemas" class="operation">
<h2>Schemas</h2>
${schemas
  .map(
    ([name, schema]) =>
      `<div id="${escapeHtml(schemaAnchor(name))}"><h3>${escapeHtml(name)}</h3>${schemaView(doc, schema)}<details><summary>JSON Schema</summary>${jsonBlock(schema)}</details></div>`,
  )
  .join('\n')}
</section>
</main>
</body>
</html>
`;
};
