import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Builds the publishable client into client/dist (`npm run build:client`, and `npm pack` in
 * client/ through prepack): one ESM file by esbuild, and declarations by `tsc
 * --emitDeclarationOnly`. The declarations need no bundler: the client imports only its own
 * files, and its types are the generated plain TypeScript of client/operations.ts, so the
 * emitted .d.ts files refer to nothing but each other and the standard fetch types.
 */
const here = fileURLToPath(new URL('.', import.meta.url));
rmSync(`${here}dist`, { recursive: true, force: true });
await build({
  entryPoints: [`${here}index.ts`],
  outfile: `${here}dist/index.js`,
  bundle: true,
  format: 'esm',
  // Neutral: no Node built-in, no package; an import of one fails the build.
  platform: 'neutral',
  target: 'es2022',
  logLevel: 'warning',
});
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', `${here}tsconfig.json`], { stdio: 'inherit' });
console.log(`Built ${here}dist`);
