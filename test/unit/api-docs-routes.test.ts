import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { REPO_ROOT } from '#service/repository-root.js';
import { ROUTES } from '#service/routes.js';

// docs/api.md names every route in its index and in the scope table, as the routes define them
// (each route's `scope`): a route added or moved to another scope cannot be left out.
const API_MD = readFileSync(join(REPO_ROOT, 'docs/api.md'), 'utf8');
/** How api.md names a route: its path after /v2/notifications/ or /v2/organizations/. */
const shortName = (path: string) => path.replace(/^\/v2\/(notifications|organizations)\//, '');

const scopeTable = (): Map<string, string[]> => {
  const rows = [...API_MD.matchAll(/^\| `(\w+)` +\| ([^|]+) \|$/gm)];
  return new Map(rows.map((row) => [row[1] as string, (row[2] as string).split(',').map((name) => name.trim())]));
};

describe('docs/api.md lists every route', () => {
  test.each(ROUTES.map((route) => [shortName(route.path), route.scope, route.path] as const))(
    '%s: in the route index, and in the scope table under %s',
    (name, scope, path) => {
      const anchor = `#post-${path.replaceAll('/', '').toLowerCase()}`;
      expect(API_MD).toContain(`[${name}](${anchor})`);
      const table = scopeTable();
      if (scope === 'admin') {
        const only = table.get('admin')?.join(', ').split('only scope for ')[1] ?? '';
        expect(only.split(/, | and /)).toContain(name);
      } else expect(table.get(scope)).toContain(name);
    },
  );

  test('no route is listed under a scope it does not have', () => {
    const byName = new Map(ROUTES.map((route) => [shortName(route.path), route.scope as string]));
    for (const [scope, names] of scopeTable()) {
      if (scope === 'admin') continue;
      for (const name of names) expect({ name, scope: byName.get(name) }).toEqual({ name, scope });
    }
  });
});
