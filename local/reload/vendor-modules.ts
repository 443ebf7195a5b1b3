import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The installed packages the functions' code imports (`@aws-sdk/client-dynamodb`, `zod/mini`,
 * ...), found by reading its import statements. A functions' process imports them ahead of
 * need: they are most of what a cold start loads, and they do not change on a save, so a spare
 * process that has them ready makes a reload cost only the project's own modules.
 */

/** `import … from 'x'`, `export … from 'x'`, `import 'x'`; never `import type` (nothing at run time). */
const IMPORTS = /^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
/** A package, not a path (`./`, `/`), an import map entry (`#shared/`) or a built-in (`node:`). */
const isPackage = (specifier: string) => !/^(\.|\/|#|node:)/.test(specifier);

const sourcesUnder = async (dir: string): Promise<string[]> => {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
};

export const vendorModules = async (root: string, folders = ['functions', 'shared']): Promise<string[]> => {
  const found = new Set<string>();
  for (const folder of folders) {
    for (const file of await sourcesUnder(join(root, folder))) {
      const text = await readFile(file, 'utf8').catch(() => '');
      for (const match of text.matchAll(IMPORTS)) {
        const specifier = match[1] as string;
        if (isPackage(specifier)) found.add(specifier);
      }
    }
  }
  return [...found].sort();
};
