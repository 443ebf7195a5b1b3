import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { build, type Metafile, transform } from 'esbuild';
import { LAMBDA_BUNDLE_ALIASES } from '#service/bundle-aliases.js';
import { type FunctionSpec, NON_ROUTE_FUNCTIONS } from '#service/functions.js';
import { REPO_ROOT } from '#service/repository-root.js';
import { functionSpecOf, PUBLIC_ROUTES, publicFunctionSpecOf, ROUTES } from '#service/routes.js';
import { OPERATIONS } from '#tools/openapi/operations.js';
import { subpathImports } from '../support/bundle.js';

// What each Lambda function carries of this project's own code, read from the bundler's metafile
// (dependencies stay external: they are measured by the bench). A function holds its own route
// and nothing of the others, no documentation, and every runtime module of shared/ is needed by
// at least one function (anything else is build-time code, which belongs with the tools).

const { dependencies } = JSON.parse(readFileSync(`${REPO_ROOT}/package.json`, 'utf8')) as {
  dependencies: Record<string, string>;
};
const EXTERNAL = Object.keys(dependencies).flatMap((name) => [name, `${name}/*`]);

interface Bundled {
  name: string;
  spec: FunctionSpec;
  /** Own files whose code is in the output (tree-shaken inputs have 0 bytes), relative to the root. */
  files: string[];
  /** Own files the function imports, even those whose code was all tree-shaken. */
  imported: string[];
  text: string;
}

const bundle = async (name: string, spec: FunctionSpec): Promise<Bundled> => {
  const result = await build({
    entryPoints: [`${REPO_ROOT}/${spec.entry}`],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    // Not minified: the minifier inlines constants across modules and drops their module from the metafile.
    metafile: true,
    logLevel: 'silent',
    external: EXTERNAL,
    plugins: [subpathImports],
  });
  const output = Object.values((result.metafile as Metafile).outputs)[0];
  const inputs = Object.entries(output?.inputs ?? {}).map(([input, { bytesInOutput }]) => ({
    file: relative(REPO_ROOT, join(REPO_ROOT, input)),
    bytesInOutput,
  }));
  return {
    name,
    spec,
    files: inputs.filter((input) => input.bytesInOutput > 0).map((input) => input.file),
    imported: inputs.map((input) => input.file),
    text: result.outputFiles[0]?.text ?? '',
  };
};

const FUNCTIONS: [string, FunctionSpec][] = [
  ...ROUTES.map((route): [string, FunctionSpec] => [route.operationId, functionSpecOf(route)]),
  ...PUBLIC_ROUTES.map((route): [string, FunctionSpec] => [route.id, publicFunctionSpecOf(route)]),
  ...Object.entries(NON_ROUTE_FUNCTIONS),
];

let bundles: Bundled[];
beforeAll(async () => {
  bundles = await Promise.all(FUNCTIONS.map(([name, spec]) => bundle(name, spec)));
}, 60_000);

const bundleOf = (name: string): Bundled => {
  const found = bundles.find((b) => b.name === name);
  if (!found) throw new Error(`no bundle ${name}`);
  return found;
};

const isRouteFile = (file: string) => /^shared\/[^/]+\/routes\//.test(file);

describe.each(ROUTES.map((route) => [route.operationId, route] as const))('%s', (id, route) => {
  test('bundles its own route and no other route, by file and by path', () => {
    const { files, text } = bundleOf(id);
    const ownFile = files.filter(isRouteFile);
    expect(ownFile).toHaveLength(1);
    expect(text).toContain(route.path);
    for (const other of ROUTES.filter((r) => r.operationId !== id)) {
      expect(text).not.toContain(`"${other.path}"`);
      expect(text).not.toContain(other.message);
    }
  });
});

describe.each(PUBLIC_ROUTES.map((route) => [route.id, route] as const))('%s (a page of the links)', (id, route) => {
  test('bundles its own route and no API route: no credential check, no envelope', () => {
    const { files, text } = bundleOf(id);
    expect(files.filter(isRouteFile)).toEqual([
      `shared/links/routes/${id.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.ts`,
    ]);
    expect(text).toContain(route.prefix);
    for (const other of ROUTES) expect(text).not.toContain(`"${other.path}"`);
    expect(files).not.toContain('shared/edge/http-route.ts');
    expect(files.filter((file) => file.startsWith('shared/auth/'))).toEqual([]);
  });
});

test('no function bundles documentation or build-time code: no summary, description or example text', () => {
  const prose = OPERATIONS.flatMap((operation) => [
    operation.summary,
    // A sentence of each description: long enough to be unique to the documentation.
    operation.description.split('\n')[0] as string,
    ...Object.values(operation.examples).map((example) => example.summary),
  ]);
  for (const { name, files, text } of bundles) {
    expect({ name, build: files.filter((file) => !/^(shared|functions)\//.test(file)) }).toEqual({ name, build: [] });
    expect({ name, prose: prose.filter((line) => text.includes(line)) }).toEqual({ name, prose: [] });
  }
});

test('functions that are no route bundle no route at all', () => {
  for (const name of Object.keys(NON_ROUTE_FUNCTIONS)) {
    expect({ name, routes: bundleOf(name).files.filter(isRouteFile) }).toEqual({ name, routes: [] });
  }
});

const sourcesUnder = (dir: string): string[] =>
  readdirSync(join(REPO_ROOT, dir)).flatMap((entry) => {
    const path = `${dir}/${entry}`;
    if (statSync(join(REPO_ROOT, path)).isDirectory()) return sourcesUnder(path);
    return path.endsWith('.ts') ? [path] : [];
  });

/** A module with nothing left once its types are erased (type-only modules need no bundle). */
const hasRuntimeCode = async (file: string): Promise<boolean> => {
  const { code } = await transform(readFileSync(join(REPO_ROOT, file), 'utf8'), { loader: 'ts', minify: true });
  return code.replace(/export\s*\{\s*\};?/g, '').trim().length > 0;
};

test('every runtime module under shared/ is in at least one function (the rest is build-time code)', async () => {
  // The alias targets stand in for SDK packages, which these builds keep external: the stack's
  // bundles hold them (test/infra/stack.test.ts).
  const bundled = new Set([...bundles.flatMap((b) => b.imported), ...Object.values(LAMBDA_BUNDLE_ALIASES)]);
  const unbundled: string[] = [];
  for (const file of sourcesUnder('shared')) {
    if (!bundled.has(file) && (await hasRuntimeCode(file))) unbundled.push(file);
  }
  expect(unbundled).toEqual([]);
});
