import { existsSync } from 'node:fs';
import { build, type Plugin } from 'esbuild';
import { REPO_ROOT } from '#service/repository-root.js';

/** Resolves the package.json subpath imports (#shared/x.js) to their TypeScript sources, for esbuild. */
export const subpathImports: Plugin = {
  name: 'subpath-imports',
  setup(builder) {
    builder.onResolve({ filter: /^#(shared|infra|functions|service|tools)\// }, ({ path }) => {
      const file = `${REPO_ROOT}/${path.slice(1).replace(/\.js$/, '.ts')}`;
      return existsSync(file) ? { path: file } : { errors: [{ text: `no ${file}` }] };
    });
  },
};

/**
 * Bundles `entry` into `outfile` as the stack bundles a function (ESM, minified, a source map
 * without the sources' text), without the CDK: for tests of what a bundle's map does.
 */
export const bundleAsAFunction = (entry: string, outfile: string) =>
  build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'node',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    outfile,
    logLevel: 'silent',
    plugins: [subpathImports],
  });
