import { createHash } from 'node:crypto';
import type { OpenApiDocument } from '#tools/openapi/document.js';

/**
 * A readable, self-contained HTML rendering of the OpenAPI document: rendered on the server,
 * no script, no external resource (its Content-Security-Policy forbids both), so it works
 * offline and cannot leak anything.
 */

type Json = OpenApiDocument;

const escapeHtml = (text: unknown): string =>
  String(text).replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] as string,
  );

const COMPONENT_PREFIX = '#/components/schemas/';
const schemaAnchor = (name: string) => `schema-${name}`;
const refName = (ref: string) => (ref.startsWith(COMPONENT_PREFIX) ? ref.slice(COMPONENT_PREFIX.length) : ref);
const refLink = (ref: string) => `<a href="#${escapeHtml(schemaAnchor(refName(ref)))}">${escapeHtml(refName(ref))}</a>`;

/** Inline markdown of the descriptions: `code`, **bold**. Escapes first. */
const inline = (text: string): string =>
  escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');

/** Block markdown of the descriptions: paragraphs, line breaks and pipe tables. */
const markdown = (text: string | undefined): string => {
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

const typeLabel = (schema: Json): string => {
  if (schema.$ref) return refLink(schema.$ref);
  if (schema.const !== undefined) return `<code>${escapeHtml(JSON.stringify(schema.const))}</code>`;
  if (schema.enum)
    return schema.enum.map((value: unknown) => `<code>${escapeHtml(JSON.stringify(value))}</code>`).join(' | ');
  if (schema.anyOf) return schema.anyOf.map(typeLabel).join(' or ');
  if (schema.type === 'array') return `array of ${schema.items ? typeLabel(schema.items) : 'any'}`;
  if (schema.type === 'object' && schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    return `map of string to ${typeLabel(schema.additionalProperties)}`;
  }
  if (Array.isArray(schema.type)) return schema.type.map(escapeHtml).join(' | ');
  return schema.type ? escapeHtml(schema.type) : 'any JSON';
};

const rules = (schema: Json): string[] => {
  const found: string[] = [];
  const range = (min: unknown, max: unknown, unit: string) => {
    if (min !== undefined && max !== undefined) found.push(`${min} to ${max} ${unit}`);
    else if (min !== undefined) found.push(`at least ${min} ${unit}`);
    else if (max !== undefined) found.push(`at most ${max} ${unit}`);
  };
  range(schema.minLength, schema.maxLength, 'characters');
  range(schema.minItems, schema.maxItems, 'items');
  range(schema.minProperties, schema.maxProperties, 'key(s)');
  if (schema.minimum !== undefined && schema.maximum !== Number.MAX_SAFE_INTEGER)
    range(schema.minimum, schema.maximum, '');
  else if (schema.minimum !== undefined) found.push(`≥ ${schema.minimum}`);
  if (schema.pattern) found.push(`pattern <code>${escapeHtml(schema.pattern)}</code>`);
  if (schema.format) found.push(`format ${escapeHtml(schema.format)}`);
  if (schema.additionalProperties === false && schema.properties) found.push('no other keys');
  const itemRules = schema.type === 'array' && schema.items && !schema.items.$ref ? rules(schema.items) : [];
  if (itemRules.length > 0) found.push(`each item: ${itemRules.join(', ')}`);
  return found;
};

/** Follows a component reference (one level). */
const deref = (doc: Json, schema: Json | undefined): Json | undefined =>
  schema?.$ref?.startsWith(COMPONENT_PREFIX) ? doc.components?.schemas?.[refName(schema.$ref)] : schema;

/** The inner schema whose fields are worth a table: objects, arrays of objects and maps of objects. */
const fieldsOf = (doc: Json, schema: Json): Json | undefined => {
  if (schema.properties) return schema;
  const inner =
    schema.type === 'array'
      ? deref(doc, schema.items)
      : typeof schema.additionalProperties === 'object'
        ? deref(doc, schema.additionalProperties)
        : undefined;
  return inner?.properties ? inner : undefined;
};

const schemaView = (doc: Json, schema: Json): string => {
  const parts = [`<div class="type">${typeLabel(schema)}</div>`];
  const schemaRules = rules(schema);
  if (schemaRules.length > 0) parts.push(`<div class="rules">${schemaRules.join('; ')}</div>`);
  if (schema.description) parts.push(markdown(schema.description));
  for (const alternative of schema.anyOf ?? []) if (!alternative.$ref) parts.push(schemaView(doc, alternative));
  const fields = fieldsOf(doc, schema);
  if (fields) {
    const required = new Set<string>(fields.required ?? []);
    const rows = Object.entries(fields.properties as Record<string, Json>).map(
      ([name, property]) =>
        `<tr><td><code>${escapeHtml(name)}</code>${required.has(name) ? ' <span class="req">required</span>' : ''}</td>` +
        `<td>${schemaView(doc, property)}</td></tr>`,
    );
    parts.push(`<table class="fields"><tbody>${rows.join('')}</tbody></table>`);
  }
  return parts.join('\n');
};

const jsonBlock = (value: unknown) => `<pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre>`;

const examplesView = (examples: Record<string, Json> | undefined, single?: unknown): string => {
  const entries: [string, Json][] = Object.entries(examples ?? {});
  if (single !== undefined) entries.push(['example', { value: single }]);
  return entries
    .map(
      ([name, example]) =>
        `<details class="example"><summary>Example: ${escapeHtml(example.summary ?? name)}</summary>${jsonBlock(example.value)}</details>`,
    )
    .join('\n');
};

/** The fields of `data` inside a request or success envelope, shown inline where the reader looks. */
const dataView = (doc: Json, envelope: Json | undefined, path: string[]): string => {
  let schema = deref(doc, envelope);
  for (const key of path) schema = deref(doc, schema?.properties?.[key]);
  return schema ? `<p><code>${path.join('.')}</code>:</p>${schemaView(doc, schema)}` : '';
};

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

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d232b;display:flex}
nav{position:sticky;top:0;height:100vh;overflow:auto;width:280px;flex:none;background:#f4f6f8;padding:1rem;box-sizing:border-box;font-size:14px}
nav a{display:block;color:#1d4f91;text-decoration:none;padding:3px 0}
nav a .path{display:block;color:#5b6570;font-size:12px}
main{padding:1rem 2rem;max-width:1000px;min-width:0;flex:1}
code,pre{font:13px/1.4 ui-monospace,monospace}
code{overflow-wrap:anywhere}
pre{background:#f4f6f8;padding:.75rem;overflow:auto;border-radius:4px}
table{border-collapse:collapse;margin:.5rem 0;width:100%}
td,th{border:1px solid #d5dbe1;padding:4px 8px;text-align:left;vertical-align:top}
table.fields td:first-child{white-space:nowrap;width:1%}
@media (max-width:760px){
body{display:block}
nav{position:static;height:auto;width:auto}
main{padding:.5rem .75rem}
td,th{padding:3px 4px}
table.fields td:first-child{white-space:normal}
h1{overflow-wrap:anywhere}
}
.method{background:#1d7a46;color:#fff;padding:1px 8px;border-radius:4px;font-size:.8em}
.operation{border-top:2px solid #d5dbe1;margin-top:2rem}
.type{font-weight:600}.rules{color:#5b6570;font-size:.9em}.req{color:#b3261e;font-size:.8em}
.code{font-weight:700;width:1%}.c2{color:#1d7a46}.c4{color:#9a5b00}.c5{color:#b3261e}
details.example{margin:.4rem 0}details.example summary{cursor:pointer;color:#1d4f91}
`;

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
