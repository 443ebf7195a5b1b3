import { readFileSync } from 'node:fs';
import { expect, test } from '@jest/globals';
import { absolutePath, GENERATED_FILES } from '#tools/openapi/generated-files.js';

// The client's paths are derived from the operations table: a route added to the table without
// `npm run generate` would leave the client without its method.
test('the client operations file is the one the operations table generates (run `npm run generate`)', () => {
  const file = GENERATED_FILES.find((candidate) => candidate.path === 'client/operations.ts');
  if (!file) throw new Error('client/operations.ts is not generated');
  expect(readFileSync(absolutePath(file), 'utf8')).toBe(file.contents());
});
