import { existsSync } from 'node:fs';
import type { Plugin } from 'esbuild';
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
