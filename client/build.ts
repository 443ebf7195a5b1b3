import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, type Plugin } from 'esbuild';

/**
 * Builds the publishable client into client/dist (`npm run build:client`, and `npm pack` in
 * client/ through prepack): one ES module file (dist/index.js) and one CommonJS file
 * (dist/cjs/index.js) by esbuild, and declarations by `tsc --emitDeclarationOnly`. The
 * declarations need no bundler: the client imports only its own files, and its types are the
 * generated plain TypeScript of client/operations.ts, so the emitted .d.ts files refer to nothing
 * but each other and the standard fetch types.
 *
 * The Node entry (`/node`: dist/node.js, dist/cjs/node.js) is built for Node from client/node.ts,
 * its import of './index.js' left as it is: it runs the main entry's code, so an error it throws
 * is an `instanceof` the classes a program imports from either entry.
 *
 * dist/cjs/ holds a copy of the declarations under a package.json of type commonjs, so that
 * TypeScript reads the `require` condition's types as CommonJS, as Node runs its code; typing
 * both formats with the ES module declarations would misstate what a require() gets.
 */
const here = fileURLToPath(new URL('.', import.meta.url));
const dist = `${here}dist`;
rmSync(dist, { recursive: true, force: true });
const common: BuildOptions = {
  entryPoints: [`${here}index.ts`],
  bundle: true,
  // Neutral: no Node built-in, no package; an import of one fails the build.
  platform: 'neutral',
  target: 'es2022',
  logLevel: 'warning',
};
await build({ ...common, format: 'esm', outfile: `${dist}/index.js` });
await build({ ...common, format: 'cjs', outfile: `${dist}/cjs/index.js` });
const mainEntryStaysExternal: Plugin = {
  name: 'main-entry-stays-external',
  setup(plugins) {
    plugins.onResolve({ filter: /^\.\/index\.js$/ }, () => ({ path: './index.js', external: true }));
  },
};
const node: BuildOptions = {
  ...common,
  entryPoints: [`${here}node.ts`],
  platform: 'node',
  target: 'node20',
  plugins: [mainEntryStaysExternal],
};
await build({ ...node, format: 'esm', outfile: `${dist}/node.js` });
await build({ ...node, format: 'cjs', outfile: `${dist}/cjs/node.js` });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', `${here}tsconfig.json`], { stdio: 'inherit' });
mkdirSync(`${dist}/cjs`, { recursive: true });
for (const file of readdirSync(dist).filter((name) => name.endsWith('.d.ts'))) {
  copyFileSync(`${dist}/${file}`, `${dist}/cjs/${file}`);
}
writeFileSync(`${dist}/cjs/package.json`, `${JSON.stringify({ type: 'commonjs' })}\n`);
console.log(`Built ${dist}`);
