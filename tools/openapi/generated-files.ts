import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ERROR_HTTP_STATUS } from '#shared/api/errors.js';
import { OPERATIONS } from '#shared/api/operations.js';
import { buildOpenApiDocument } from '#tools/openapi/document.js';
import { docComment, typeScriptType } from './json-schema-to-ts.js';

/**
 * Files derived from the operations table (shared/api/operations.ts) and committed, so that
 * readers and the zod-free client can use them. `npm run generate` writes them;
 * test/unit/generated-files.test.ts fails when one is stale.
 */
export interface GeneratedFile {
  /** Relative to the repository root. */
  path: string;
  contents: () => string;
}

/**
 * The client's paths and, as plain TypeScript, each operation's `data` and `result.data`: the
 * zod schemas written out through JSON Schema (the request as it is sent, the result as it is
 * answered). The client package publishes declarations built from this file alone, so a
 * consumer needs neither zod nor this repository's aliases; a unit test checks that these types
 * equal the ones zod infers.
 */
const clientOperations = (): string => {
  const typeAlias = (name: string, schema: z.core.$ZodType, io: 'input' | 'output', what: string) => {
    const jsonSchema = z.toJSONSchema(schema, { io, unrepresentable: 'throw' });
    const description = typeof jsonSchema.description === 'string' ? ` ${jsonSchema.description}` : '';
    return `${docComment(`${what}${description}`, '')}export type ${name} = ${typeScriptType(jsonSchema)};\n`;
  };
  return [
    '// Generated from shared/api/operations.ts by `npm run generate`: do not edit.',
    '// Plain TypeScript without imports: the published client needs nothing but these paths and types.',
    '',
    'export const OPERATION_PATHS = {',
    ...OPERATIONS.map((operation) => `  ${operation.operationId}: '${operation.path}',`),
    '} as const;',
    '',
    'export type OperationId = keyof typeof OPERATION_PATHS;',
    '',
    ...OPERATIONS.flatMap((operation) => [
      typeAlias(`${operation.name}Input`, operation.request, 'input', `\`data\` of ${operation.operationId}.`),
      typeAlias(`${operation.name}Result`, operation.result, 'output', `\`result.data\` of ${operation.operationId}.`),
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
  { path: 'client/operations.ts', contents: clientOperations },
  { path: 'client/error-statuses.ts', contents: clientErrorStatuses },
];

export const absolutePath = (file: GeneratedFile): string =>
  fileURLToPath(new URL(`../../${file.path}`, import.meta.url));
