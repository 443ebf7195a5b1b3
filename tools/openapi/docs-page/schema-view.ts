import type { OpenApiDocument } from '#tools/openapi/document.js';
import { escapeHtml, withBreakPoints } from './html.js';
import { markdown } from './markdown.js';

/** How the page shows a JSON Schema: its type, rules, description, fields and examples. */

type Json = OpenApiDocument;

const COMPONENT_PREFIX = '#/components/schemas/';
export const schemaAnchor = (name: string) => `schema-${name}`;
const refName = (ref: string) => (ref.startsWith(COMPONENT_PREFIX) ? ref.slice(COMPONENT_PREFIX.length) : ref);
const refLink = (ref: string) => `<a href="#${escapeHtml(schemaAnchor(refName(ref)))}">${escapeHtml(refName(ref))}</a>`;

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

export const schemaView = (doc: Json, schema: Json): string => {
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
    parts.push(`<table class="fields stack"><tbody>${rows.join('')}</tbody></table>`);
  }
  return parts.join('\n');
};

export const jsonBlock = (value: unknown) => `<pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre>`;

export const examplesView = (examples: Record<string, Json> | undefined, single?: unknown): string => {
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
export const dataView = (doc: Json, envelope: Json | undefined, path: string[]): string => {
  let schema = deref(doc, envelope);
  for (const key of path) schema = deref(doc, schema?.properties?.[key]);
  return schema ? `<p><code>${withBreakPoints(path.join('.'))}</code>:</p>${schemaView(doc, schema)}` : '';
};
