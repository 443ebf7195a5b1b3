import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { REPO_ROOT } from '#service/repository-root.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// The client as another project gets it: built and packed from client/, installed from the
// tarball into fresh projects (an ES module one and a CommonJS one, as `npm init -y` makes it)
// without the registry, compiled by the strictest consumer tsconfig, which has none of this
// repository's settings (no path aliases, lib ES2022), and run by plain node against the local
// service. The consumer's programs are in test/twin/client-consumer/.
const CLIENT_DIR = join(REPO_ROOT, 'client');
const CONSUMER = join(REPO_ROOT, 'test/twin/client-consumer');
const PACKAGE = 'node_modules/@notification-preferences/client';
const NODE_TYPES = join(REPO_ROOT, 'node_modules/@types');
const TSC = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');

let service: LocalService;
let work: string;
let tarball: string;
let packedFiles: { path: string; size: number }[];

// Asynchronous: the local service answers from this very process. A failure shows its output
// (tsc writes its errors to stdout).
const run = async (command: string, args: string[], cwd: string) => {
  try {
    return (await promisify(execFile)(command, args, { cwd, encoding: 'utf8', timeout: 120_000 })).stdout;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${[command, ...args].join(' ')} failed:\n${stdout}${stderr}`, { cause: error });
  }
};

beforeAll(async () => {
  service = await startLocalService();
  work = mkdtempSync(join(tmpdir(), 'client-package-'));
  await run('npm', ['run', '--silent', 'build:client'], REPO_ROOT);
  // The build ran just above; pack only collects it.
  const [packed] = JSON.parse(
    await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], CLIENT_DIR),
  ) as { filename: string; files: { path: string; size: number }[] }[];
  if (!packed) throw new Error('npm pack gave no tarball');
  tarball = join(work, packed.filename);
  packedFiles = packed.files;
}, 120_000);

afterAll(async () => {
  await service?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const DECLARATIONS = [
  'answer',
  'client',
  'error-statuses',
  'errors',
  'index',
  'node',
  'operations',
  'retry',
  'transfer',
  'types',
  'wait',
];

test('the tarball holds only the built client: ES module and CommonJS code of both entries, declarations for each, package.json, README', () => {
  const paths = packedFiles.map((file) => file.path).sort();
  expect(paths).toEqual(
    [
      'README.md',
      'package.json',
      'dist/index.js',
      'dist/node.js',
      'dist/cjs/index.js',
      'dist/cjs/node.js',
      'dist/cjs/package.json',
      ...DECLARATIONS.flatMap((name) => [`dist/${name}.d.ts`, `dist/cjs/${name}.d.ts`]),
    ].sort(),
  );
  // Code of about 13 kB per format and entry, declarations of about 55 kB per copy (two copies;
  // the operations' types most of it), the README: about 165 kB. zod or any package bundled by
  // mistake would add far more.
  expect(packedFiles.reduce((total, file) => total + file.size, 0)).toBeLessThan(200_000);
  const manifest = JSON.parse(readFileSync(join(CLIENT_DIR, 'package.json'), 'utf8'));
  expect(manifest).not.toHaveProperty('dependencies');
  expect(manifest).not.toHaveProperty('peerDependencies');
  expect(JSON.parse(readFileSync(join(CLIENT_DIR, 'dist/cjs/package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
  for (const bundle of ['dist/index.js', 'dist/cjs/index.js']) {
    const code = readFileSync(join(CLIENT_DIR, bundle), 'utf8');
    expect(code).not.toMatch(/\bfrom\s*["']|import\(|require\(/);
  }
  // The Node entry imports the main one, as it is (not a copy), and Node's built-ins.
  for (const bundle of ['dist/node.js', 'dist/cjs/node.js']) {
    const code = readFileSync(join(CLIENT_DIR, bundle), 'utf8');
    const imports = [...code.matchAll(/(?:\bfrom\s*|require\()"([^"]+)"/g)].map((m) => m[1]);
    expect(new Set(imports.filter((specifier) => !specifier?.startsWith('node:')))).toEqual(new Set(['./index.js']));
  }
  for (const file of paths.filter((path) => path.endsWith('.d.ts'))) {
    // Declarations refer only to each other and, for the Node entry, to Node's own modules: no
    // zod, no #shared alias, no .ts ending.
    const imports = [...readFileSync(join(CLIENT_DIR, file), 'utf8').matchAll(/from\s*'([^']+)'/g)].map((m) => m[1]);
    for (const specifier of imports) expect(specifier).toMatch(/^(\.\/[a-z-]+\.js|node:[a-z/]+)$/);
  }
});

/** A scratch project as `npm init -y` makes it (CommonJS), or turned into an ES module one, with the tarball installed. */
const scratchProject = async (name: string, type: 'commonjs' | 'module'): Promise<string> => {
  const project = join(work, name);
  mkdirSync(project);
  await run('npm', ['init', '-y'], project);
  if (type === 'module') await run('npm', ['pkg', 'set', 'type=module'], project);
  // An empty cache, no network, and a registry that is not there: the install cannot use any registry.
  await run(
    'npm',
    [
      'install',
      '--offline',
      '--no-audit',
      '--no-fund',
      '--cache',
      join(work, 'npm-cache'),
      '--registry',
      'http://127.0.0.1:9/',
      tarball,
    ],
    project,
  );
  const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8'));
  expect(Object.keys(lock.packages).sort()).toEqual(['', PACKAGE]);
  return project;
};

/**
 * Compiles the consumer's usage.ts in the project, as its package type makes it (ES module or
 * CommonJS), and answers the declaration files tsc read.
 */
const compileUsage = async (project: string): Promise<string[]> => {
  copyFileSync(join(CONSUMER, 'usage.ts'), join(project, 'usage.ts'));
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2022'],
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        // A Node project has @types/node; the consumer takes it from here rather than the registry.
        typeRoots: [NODE_TYPES],
        types: ['node'],
        outDir: 'out',
      },
      files: ['usage.ts'],
    }),
  );
  const listed = await run(process.execPath, [TSC, '-p', 'tsconfig.json', '--listFiles'], project);
  return listed.split('\n').filter((file) => file.includes(PACKAGE));
};

const args = (organizationId: string) => [service.baseUrl, service.apiKey, service.token, organizationId];

const USAGE_OUTPUT = {
  write: 'organization',
  inbox: 'MINE',
  onDocument: 'document:NONE:document',
  organizationLevel: 'organization:MINE:default',
  first: 'document:NONE:document',
  state: 'completed',
  moved: { email: 'NONE', slack: 'ALL' },
  missing: 'NOT_FOUND',
  exported: 'completed',
  exportedAll: true,
  lastProgress: 'completed',
  imported: ['completed', true, 1],
};
const PLAIN_OUTPUT = { email: 'ALL', refused: 'NOT_FOUND', nodeEntry: true };

test('an ES module project: strict TypeScript compiles against the import types, and it and plain import call the API', async () => {
  const project = await scratchProject('esm-consumer', 'module');
  copyFileSync(join(CONSUMER, 'import.mjs'), join(project, 'import.mjs'));
  const fromJs = JSON.parse(await run(process.execPath, ['import.mjs', ...args('package-esm-js')], project));
  expect(fromJs).toEqual(PLAIN_OUTPUT);

  const declarations = await compileUsage(project);
  expect(declarations).toContain(join(project, PACKAGE, 'dist/index.d.ts'));
  expect(declarations.filter((file) => file.includes('/dist/cjs/'))).toEqual([]);
  expect(readFileSync(join(project, 'out/usage.js'), 'utf8')).toContain(`from '@notification-preferences/client'`);

  const fromTs = JSON.parse(await run(process.execPath, ['out/usage.js', ...args('package-esm-ts')], project));
  expect(fromTs).toEqual(USAGE_OUTPUT);
}, 120_000);

test('a CommonJS project (npm init -y): strict TypeScript compiles to require() against the require types, and it and plain require() call the API', async () => {
  const project = await scratchProject('cjs-consumer', 'commonjs');
  copyFileSync(join(CONSUMER, 'require.js'), join(project, 'require.js'));
  const fromJs = JSON.parse(await run(process.execPath, ['require.js', ...args('package-cjs-js')], project));
  expect(fromJs).toEqual(PLAIN_OUTPUT);

  const declarations = await compileUsage(project);
  expect(declarations).toContain(join(project, PACKAGE, 'dist/cjs/index.d.ts'));
  expect(declarations.filter((file) => !file.includes('/dist/cjs/'))).toEqual([]);
  expect(readFileSync(join(project, 'out/usage.js'), 'utf8')).toContain(`require("@notification-preferences/client")`);

  const fromTs = JSON.parse(await run(process.execPath, ['out/usage.js', ...args('package-cjs-ts')], project));
  expect(fromTs).toEqual(USAGE_OUTPUT);
}, 120_000);
