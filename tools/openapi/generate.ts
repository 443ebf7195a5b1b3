import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { buildOpenApiDocument } from '#shared/api/openapi.js';
import { OPENAPI_FILE, openApiFilePath } from './document-file.js';

/**
 * Writes docs/openapi.json from the zod schemas (`npm run openapi`), formatted the way the
 * linter wants it. test/unit/openapi-document.test.ts fails when the committed file is stale.
 */
const path = openApiFilePath();
writeFileSync(path, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
execFileSync(process.execPath, [biome, 'format', '--write', path], { stdio: ['ignore', 'ignore', 'inherit'] });
console.log(`Wrote ${OPENAPI_FILE}`);
