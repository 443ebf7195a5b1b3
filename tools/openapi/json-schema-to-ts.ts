/**
 * Writes a JSON Schema (as z.toJSONSchema produces it for the API's schemas) as a plain
 * TypeScript type. The published client's declarations come from here: they must not refer to
 * zod or to the repository's #shared aliases, which a consumer of the package does not have.
 * It knows only the shapes the API uses and throws on anything else, so that a new construct
 * in a schema is noticed by `npm run generate` instead of turning into a silent `unknown`.
 */
// biome-ignore lint/suspicious/noExplicitAny: JSON Schema is untyped JSON.
type Schema = Record<string, any>;

const quote = (value: string) => `'${value.replace(/[\\']/g, (char) => `\\${char}`)}'`;
const literal = (value: unknown): string => {
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  throw new Error(`No TypeScript literal for ${JSON.stringify(value)}`);
};

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A JSDoc line above a member or a type, when the schema describes itself. */
export const docComment = (description: unknown, indent: string): string =>
  typeof description === 'string' && description.trim() !== ''
    ? `${indent}/** ${description.replace(/\*\//g, '*\\/').replace(/\s*\n\s*/g, ' ')} */\n`
    : '';

/**
 * An object member. Optional ones add `| undefined`, as zod infers them, so that a caller under
 * exactOptionalPropertyTypes may pass `documentIds: maybeIds` (JSON.stringify then drops the
 * key). A multi-line type goes in the union laid out as Biome formats it, since the generated
 * file must equal its formatted self.
 */
const member = (key: string, property: Schema, required: boolean, indent: string): string => {
  const type = typeScriptType(property, indent);
  if (required) return `${key}: ${type}`;
  if (!type.includes('\n')) return `${key}?: ${type} | undefined`;
  return `${key}?:\n${indent}  | ${typeScriptType(property, `${indent}    `)}\n${indent}  | undefined`;
};

export const typeScriptType = (schema: Schema, indent = ''): string => {
  if (schema.const !== undefined) return literal(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map(literal).join(' | ');
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives)) return alternatives.map((one: Schema) => typeScriptType(one, indent)).join(' | ');
  if (Array.isArray(schema.type)) {
    return schema.type.map((type: string) => typeScriptType({ ...schema, type }, indent)).join(' | ');
  }
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = typeScriptType(schema.items ?? {}, indent);
      return /^[A-Za-z]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case 'object': {
      if (schema.properties) {
        const required = new Set<string>(schema.required ?? []);
        const inner = `${indent}  `;
        const members = Object.entries(schema.properties as Record<string, Schema>).map(([name, property]) => {
          const key = IDENTIFIER.test(name) ? name : quote(name);
          return `${docComment(property.description, inner)}${inner}${member(key, property, required.has(name), inner)};`;
        });
        return members.length === 0 ? 'Record<string, never>' : `{\n${members.join('\n')}\n${indent}}`;
      }
      if (typeof schema.additionalProperties === 'object') {
        const inner = `${indent}  `;
        return `{\n${inner}[key: string]: ${typeScriptType(schema.additionalProperties, inner)};\n${indent}}`;
      }
      break;
    }
  }
  throw new Error(`No TypeScript type for the JSON Schema ${JSON.stringify(schema)}`);
};
