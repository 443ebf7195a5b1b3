import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Resolves the package.json subpath imports (#shared/x.js) to their TypeScript sources, for esbuild. */
export const subpathImports: Plugin = {
  name: 'subpath-imports',
  setup(builder) {
    builder.onResolve({ filter: /^#(shared|infra|functions)\// }, ({ path }) => {
      const file = `${PROJECT_ROOT}${path.slice(1).replace(/\.js$/, '.ts')}`;
      return existsSync(file) ? { path: file } : { errors: [{ text: `no ${file}` }] };
    });
  },
};
