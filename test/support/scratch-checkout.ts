import { cp, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { REPO_ROOT } from '#service/repository-root.js';

/**
 * A copy of the repository's sources in a scratch folder, sharing its node_modules: what
 * `npm run dev` runs in when a test or the bench edits the functions' code, so that no file of
 * the checkout changes under the other tests that run meanwhile.
 */

/** Top-level entries a copy needs not: installed, generated, tests, data. */
const LEFT_OUT = new Set(['node_modules', '.git', 'test', 'cdk.out', '.data', 'coverage', '.scratch']);

export interface ScratchCheckout {
  root: string;
  remove(): Promise<void>;
}

export const scratchCheckout = async (prefix = 'scratch-checkout-'): Promise<ScratchCheckout> => {
  const root = await mkdtemp(join(tmpdir(), prefix));
  await cp(REPO_ROOT, root, {
    recursive: true,
    filter: (source) => {
      const path = relative(REPO_ROOT, source);
      return path === '' || !LEFT_OUT.has(path.split(sep)[0] as string);
    },
  });
  await symlink(await realpath(join(REPO_ROOT, 'node_modules')), join(root, 'node_modules'));
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
};
