import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { REPO_ROOT } from '#service/repository-root.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// The client as another project gets it: built and packed from client/, installed from the
// tarball into a fresh project without the registry, compiled by a strict consumer tsconfig that
// has none of this repository's settings (no path aliases, lib ES2022), and run by plain node
// against the local service.
const CLIENT_DIR = join(REPO_ROOT, 'client');
const NODE_TYPES = join(REPO_ROOT, 'node_modules/@types');
const TSC = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');

let service: LocalService;
let work: string;
let tarball: string;
let packedFiles: { path: string; size: number }[];

// Asynchronous: the local service answers from this very process.
const run = async (command: string, args: string[], cwd: string) =>
  (await promisify(execFile)(command, args, { cwd, encoding: 'utf8', timeout: 120_000 })).stdout;

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

test('the tarball holds only the built client: ESM, declarations, its package.json and README', () => {
  const paths = packedFiles.map((file) => file.path).sort();
  expect(paths).toEqual([
    'README.md',
    'dist/client.d.ts',
    'dist/error-statuses.d.ts',
    'dist/errors.d.ts',
    'dist/index.d.ts',
    'dist/index.js',
    'dist/operations.d.ts',
    'dist/retry.d.ts',
    'package.json',
  ]);
  expect(packedFiles.reduce((total, file) => total + file.size, 0)).toBeLessThan(60_000);
  const manifest = JSON.parse(readFileSync(join(CLIENT_DIR, 'package.json'), 'utf8'));
  expect(manifest).not.toHaveProperty('dependencies');
  expect(manifest).not.toHaveProperty('peerDependencies');
  const code = readFileSync(join(CLIENT_DIR, 'dist/index.js'), 'utf8');
  expect(code).not.toMatch(/\bfrom\s*["']|import\(|require\(/);
  for (const file of paths.filter((path) => path.endsWith('.d.ts'))) {
    // Declarations refer only to each other: no zod, no #shared alias, no .ts ending.
    const imports = [...readFileSync(join(CLIENT_DIR, file), 'utf8').matchAll(/from\s*'([^']+)'/g)].map((m) => m[1]);
    for (const specifier of imports) expect(specifier).toMatch(/^\.\/[a-z-]+\.js$/);
  }
});

const TS_PROGRAM = `import { createClient, type MigrationStatusResult, ServiceError } from '@notification-preferences/client';

const [baseUrl = '', apiKey = '', token = '', organizationId = ''] = process.argv.slice(2);
const client = createClient({ baseUrl, apiKey, token, retry: { attempts: 3, baseDelayMs: 50 } });

await client.setConfig({ organizationId, userIds: ['ann', 'ben'], config: { inbox: 'MINE' } });
await client.setConfig({ organizationId, userIds: ['ann'], documentIds: ['doc-a'], config: { email: 'NONE', slack: 'ALL' } });
const [before] = await client.getConfig({ organizationId, userId: 'ann', documentIds: ['doc-a'] });
const { migrationId } = await client.migrateDocument({ organizationId, documentId: 'doc-a', newDocumentId: 'doc-b' });
const done: MigrationStatusResult = await client.waitForMigration({ organizationId, migrationId }, { intervalMs: 50, timeoutMs: 20_000 });
const [after] = await client.getConfig({ organizationId, userId: 'ann', documentIds: ['doc-b'] });
const missing = await client.getMigrationStatus({ organizationId, migrationId: 'no-such-id' }).catch((error: unknown) => error);

// @ts-expect-error the published types refuse an unknown channel value
void (() => client.setConfig({ organizationId, userIds: ['ann'], config: { inbox: 'SOME' } }));
// @ts-expect-error and a missing newDocumentId
void (() => client.migrateDocument({ organizationId, documentId: 'doc-a' }));

const summary: { effective: unknown; status: string; moved: number; after: unknown; missing: string } = {
  effective: before?.effective,
  status: done.status,
  moved: done.moved,
  after: after?.config,
  missing: missing instanceof ServiceError ? missing.status : String(missing),
};
console.log(JSON.stringify(summary));
`;

// The same, untyped, as a plain ES module.
const MJS_PROGRAM = TS_PROGRAM.replace(', type MigrationStatusResult', '')
  .replace(/^\/\/ @ts-expect-error.*\n.*\n/gm, '')
  .replace(': MigrationStatusResult', '')
  .replace(/\.catch\(\(error: unknown\)/, '.catch((error)')
  .replace(/const summary: \{[^}]*\} =/, 'const summary =');

test('a fresh project installs the tarball offline, compiles strict TypeScript against it and calls the API with plain node', async () => {
  const project = join(work, 'consumer');
  await run('mkdir', ['-p', project], work);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }),
  );
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
  expect(Object.keys(lock.packages).sort()).toEqual(['', 'node_modules/@notification-preferences/client']);

  writeFileSync(join(project, 'main.ts'), TS_PROGRAM);
  writeFileSync(join(project, 'main.mjs'), MJS_PROGRAM);
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2022'],
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        // A Node project has @types/node; the consumer takes it from here rather than the registry.
        typeRoots: [NODE_TYPES],
        types: ['node'],
        outDir: 'out',
      },
      files: ['main.ts'],
    }),
  );
  await run(process.execPath, [TSC, '-p', 'tsconfig.json'], project);

  const args = [service.baseUrl, service.apiKey, service.token];
  const fromTs = JSON.parse(await run(process.execPath, ['out/main.js', ...args, 'package-ts'], project));
  const fromMjs = JSON.parse(await run(process.execPath, ['main.mjs', ...args, 'package-mjs'], project));
  const expected = {
    effective: { inbox: 'MINE', email: 'NONE', slack: 'ALL' },
    status: 'completed',
    moved: 1,
    after: { email: 'NONE', slack: 'ALL' },
    missing: 'NOT_FOUND',
  };
  expect(fromTs).toEqual(expected);
  expect(fromMjs).toEqual(expected);
}, 120_000);
