import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect, test } from '@jest/globals';
import { absolutePath, GENERATED_FILES } from '#tools/openapi/generated-files.js';

// The client's paths, types and error statuses are derived from the operations table and the
// errors catalogue: a route added to the table without `npm run generate` would leave the client
// without its method, a changed schema would leave its published types wrong.
// The docs page the twin serves is rendered at build time from the same document (/docs).
const COMPARED = GENERATED_FILES.filter((file) => file.path.startsWith('client/') || file.path.endsWith('.html'));

const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');

/** What `npm run generate` writes: the TypeScript formatted by Biome, the page as rendered. */
const generated = (path: string, contents: string): string =>
  path.endsWith('.html')
    ? contents
    : execFileSync(process.execPath, [biome, 'format', `--stdin-file-path=${path}`], {
        input: contents,
        encoding: 'utf8',
      });

test.each(COMPARED.map((file) => [file.path, file] as const))(
  '%s is the one the routes and their documentation generate (run `npm run generate`)',
  (_path, file) => {
    expect(readFileSync(absolutePath(file), 'utf8')).toBe(generated(absolutePath(file), file.contents()));
  },
);
