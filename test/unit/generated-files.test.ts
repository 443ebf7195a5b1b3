import { readFileSync } from 'node:fs';
import { expect, test } from '@jest/globals';
import { absolutePath, GENERATED_FILES } from '#tools/openapi/generated-files.js';

// The client's paths, types and error statuses are derived from the operations table and the
// errors catalogue: a route added to the table without `npm run generate` would leave the client
// without its method, a changed schema would leave its published types wrong.
// The docs page the twin serves is rendered at build time from the same document (/docs).
const COMPARED = GENERATED_FILES.filter((file) => file.path.startsWith('client/') || file.path.endsWith('.html'));

test.each(COMPARED.map((file) => [file.path, file] as const))(
  '%s is the one the routes and their documentation generate (run `npm run generate`)',
  (_path, file) => {
    expect(readFileSync(absolutePath(file), 'utf8')).toBe(file.contents());
  },
);
