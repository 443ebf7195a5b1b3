/**
 * Field descriptions attached where a schema is used, never to the shared schema object itself:
 * `before` and `after` of a history change are the same runtime schema, yet mean different things.
 * A path names a field from the root of a request or result: `a.b` (a property of a property),
 * `a[]` (the items of an array), `a{}` (the values of a record); `` is the schema itself.
 */
export type FieldDocs = Record<string, string>;

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema is untyped JSON.
type JsonSchema = Record<string, any>;

/** A nullable field (`anyOf: [X, {type: 'null'}]`) is walked through its non-null branch. */
const inner = (node: JsonSchema): JsonSchema => {
  const branches = node.anyOf as JsonSchema[] | undefined;
  return branches?.find((branch) => branch.type !== 'null') ?? node;
};

const step = (node: JsonSchema, key: 'items' | 'additionalProperties' | string, path: string): JsonSchema => {
  const from = inner(node);
  if (from.$ref) throw new Error(`${path}: goes through ${from.$ref}; document the component's own fields instead`);
  const next = key === 'items' || key === 'additionalProperties' ? from[key] : from.properties?.[key];
  if (!next || typeof next !== 'object') throw new Error(`${path}: no such field`);
  return next;
};

/** Sets each documented field's `description` in `schema` (a JSON Schema as zod writes it); a path that names nothing throws. */
export const describeFields = (schema: JsonSchema, fields: FieldDocs | undefined, where: string): void => {
  for (const [path, description] of Object.entries(fields ?? {})) {
    let node = schema;
    for (const segment of path === '' ? [] : path.split('.')) {
      const match = /^([^[{]*)((?:\[\]|\{\})*)$/.exec(segment);
      if (!match) throw new Error(`${where}: bad field path ${path}`);
      const [, name = '', suffixes = ''] = match;
      if (name) node = step(node, name, `${where}: ${path}`);
      for (const suffix of suffixes.match(/\[\]|\{\}/g) ?? []) {
        node = step(node, suffix === '[]' ? 'items' : 'additionalProperties', `${where}: ${path}`);
      }
    }
    node.description = description;
  }
};
