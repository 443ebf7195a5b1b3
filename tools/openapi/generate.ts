import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { absolutePath, GENERATED_FILES } from './generated-files.js';

/**
 * Writes the files derived from the operations table (`npm run generate`), formatted the way
 * the linter wants them. test/twin/generated-files.test.ts fails when a committed one is stale.
 */
const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
for (const file of GENERATED_FILES) {
  const path = absolutePath(file);
  writeFileSync(path, file.contents());
  // Biome formats the TypeScript and the JSON; the HTML page is written as rendered.
  if (!path.endsWith('.html')) {
    execFileSync(process.execPath, [biome, 'format', '--write', path], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  console.log(`Wrote ${file.path}`);
}
