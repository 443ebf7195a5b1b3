import { fileURLToPath } from 'node:url';
import { ERROR_HTTP_STATUS } from '#shared/api/errors.js';
import { buildOpenApiDocument } from '#tools/openapi/document.js';
import { renderDocsPage } from './docs-page.js';
import { docComment, typeScriptType } from './json-schema-to-ts.js';
import { OPERATIONS } from './operations.js';

/**
 * Files derived from the operations table (tools/openapi/operations.ts) and committed, so that
 * readers and the zod-free client can use them. `npm run generate` writes them;
 * test/twin/generated-files.test.ts fails when one is stale.
 */
export interface GeneratedFile {
  /** Relative to the repository root. */
  path: string;
  contents: () => string;
}

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema is untyped JSON.
type JsonSchema = Record<string, any>;

/** A schema with every `$ref` replaced by its component, the referring node's own keys (its description) kept. */
const inlineRefs = (node: unknown, components: Record<string, JsonSchema>): unknown => {
  if (Array.isArray(node)) return node.map((item) => inlineRefs(item, components));
  if (typeof node !== 'object' || node === null) return node;
  const { $ref, ...rest } = node as JsonSchema;
  const own = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inlineRefs(value, components)]));
  if (typeof $ref !== 'string') return own;
  const component = components[$ref.replace('#/components/schemas/', '')];
  if (!component) throw new Error(`No component for ${$ref}`);
  return { ...(inlineRefs(component, components) as JsonSchema), ...own };
};

/**
 * The client's paths and, as plain TypeScript, each operation's `data` and `result.data`: the
 * request and result components of the OpenAPI document (the request as it is sent, the result
 * as it is answered), with their field descriptions. The client package publishes declarations
 * built from this file alone, so a consumer needs neither zod nor this repository's aliases; a
 * unit test checks that these types equal the ones zod infers.
 */
const clientOperations = (): string => {
  const components = buildOpenApiDocument().components.schemas as Record<string, JsonSchema>;
  const typeAlias = (name: string, component: string, what: string) => {
    const jsonSchema = inlineRefs(components[component], components) as JsonSchema;
    const description = typeof jsonSchema.description === 'string' ? ` ${jsonSchema.description}` : '';
    return `${docComment(`${what}${description}`, '')}export type ${name} = ${typeScriptType(jsonSchema)};\n`;
  };
  return [
    '// Generated from the routes (shared/<domain>/routes/) and their documentation (tools/openapi/) by `npm run generate`: do not edit.',
    '// Plain TypeScript without imports: the published client needs nothing but these paths and types.',
    '',
    'export const OPERATION_PATHS = {',
    ...OPERATIONS.map((operation) => `  ${operation.operationId}: '${operation.path}',`),
    '} as const;',
    '',
    'export type OperationId = keyof typeof OPERATION_PATHS;',
    '',
    '/**',
    ' * The operations whose second sending is not the first one again when the first may have been',
    ' * applied (no answer, or a 503 that may have come after the work): the client does not resend',
    ' * those on its own. `why` says why; `onlyWith` names a field of `data` without which a repeat is safe.',
    ' */',
    'export const NOT_REPEATABLE: { readonly [Id in OperationId]?: { why: string; onlyWith?: string } } = {',
    ...OPERATIONS.flatMap((operation) =>
      operation.notRepeatable === undefined
        ? []
        : [`  ${operation.operationId}: ${JSON.stringify(operation.notRepeatable)},`],
    ),
    '};',
    '',
    '/**',
    ' * The operations that start a job and take an `Idempotency-Key` header: the client sends one key',
    ' * with every attempt of a call, so that a repeat after a lost answer answers what the first did.',
    ' */',
    'export const IDEMPOTENCY_KEY: { readonly [Id in OperationId]?: true } = {',
    ...OPERATIONS.flatMap((operation) =>
      'idempotencyKey' in operation && operation.idempotencyKey ? [`  ${operation.operationId}: true,`] : [],
    ),
    '};',
    '',
    ...OPERATIONS.flatMap((operation) => [
      typeAlias(`${operation.name}Input`, `${operation.name}Request`, `\`data\` of ${operation.operationId}.`),
      typeAlias(`${operation.name}Result`, `${operation.name}Result`, `\`result.data\` of ${operation.operationId}.`),
    ]),
    "/** Each operation's `data` and `result.data`, by operationId. */",
    'export interface OperationTypes {',
    ...OPERATIONS.map(
      (operation) => `  ${operation.operationId}: { input: ${operation.name}Input; result: ${operation.name}Result };`,
    ),
    '}',
    '',
    '/** `data` a client sends to an operation. */',
    "export type OperationInput<Id extends OperationId> = OperationTypes[Id]['input'];",
    '/** `result.data` an operation answers. */',
    "export type OperationResult<Id extends OperationId> = OperationTypes[Id]['result'];",
    '',
  ].join('\n');
};

/** The error statuses and their HTTP codes, so that the client maps answers without the shared code. */
const clientErrorStatuses = (): string =>
  [
    '// Generated from shared/api/errors.ts by `npm run generate`: do not edit.',
    '',
    'export const ERROR_HTTP_STATUS = {',
    ...Object.entries(ERROR_HTTP_STATUS).map(([status, httpStatus]) => `  ${status}: ${httpStatus},`),
    '} as const;',
    '',
    'export type ErrorStatus = keyof typeof ERROR_HTTP_STATUS;',
    '',
  ].join('\n');

export const GENERATED_FILES: GeneratedFile[] = [
  { path: 'docs/openapi.json', contents: () => `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n` },
  // The page the local twin serves at /docs: rendered at build time, so that the twin reads files
  // and never runs the generator.
  { path: 'docs/openapi.html', contents: () => renderDocsPage(buildOpenApiDocument()) },
  { path: 'client/operations.ts', contents: clientOperations },
  { path: 'client/error-statuses.ts', contents: clientErrorStatuses },
];

export const absolutePath = (file: GeneratedFile): string =>
  fileURLToPath(new URL(`../../${file.path}`, import.meta.url));
