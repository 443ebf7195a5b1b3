import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '#shared/api/openapi.js';
import { OPERATIONS } from '#shared/api/operations.js';

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

const clientOperations = (): string =>
  [
    '// Generated from shared/api/operations.ts by `npm run generate`: do not edit.',
    '// The client needs only the paths at run time; its types come from the same table.',
    '',
    'export const OPERATION_PATHS = {',
    ...OPERATIONS.map((operation) => `  ${operation.operationId}: '${operation.path}',`),
    '} as const;',
    '',
  ].join('\n');

export const GENERATED_FILES: GeneratedFile[] = [
  { path: 'docs/openapi.json', contents: () => `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n` },
  { path: 'client/operations.ts', contents: clientOperations },
];

export const absolutePath = (file: GeneratedFile): string =>
  fileURLToPath(new URL(`../../${file.path}`, import.meta.url));
