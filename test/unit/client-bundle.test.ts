import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@jest/globals';
import { build, type Plugin } from 'esbuild';

const root = fileURLToPath(new URL('../../', import.meta.url));

// The package.json subpath imports (#shared/x.js) point at TypeScript sources.
const subpathImports: Plugin = {
  name: 'subpath-imports',
  setup(builder) {
    builder.onResolve({ filter: /^#(shared|infra|functions)\// }, ({ path }) => {
      const file = `${root}${path.slice(1).replace(/\.js$/, '.ts')}`;
      return existsSync(file) ? { path: file } : { errors: [{ text: `no ${file}` }] };
    });
  },
};

// The client must run on fetch alone: its bundle holds only its own modules and two zod-free tables.
test('the client bundles without zod or any other package, and runs on plain Node with a fake fetch', async () => {
  const result = await build({
    entryPoints: [`${root}shared/client/index.ts`],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    metafile: true,
    logLevel: 'silent',
    plugins: [subpathImports],
  });
  const inputs = Object.keys(result.metafile.inputs)
    .map((input) => input.replace(root, ''))
    .sort();
  expect(inputs).toEqual([
    'infra/routes.ts',
    'shared/client/client.ts',
    'shared/client/errors.ts',
    'shared/client/index.ts',
    'shared/errors.ts',
  ]);
  const code = result.outputFiles[0]?.text ?? '';
  expect(code).not.toMatch(/zod|node_modules|from ["']/);

  const script = `${code}
const fetch = async (url, init) => new Response(JSON.stringify(
  url.endsWith('/migrate') ? { result: { status: 'success', message: 'ok', data: { migrationId: 'm-1' } } }
    : { error: { message: 'Migration not found.', status: 'NOT_FOUND' } }), { status: url.endsWith('/migrate') ? 200 : 404 });
const client = createClient({ baseUrl: 'http://x', apiKey: 'k', token: 't', fetch });
const started = await client.migrateDocument({ organizationId: 'o', documentId: 'a', newDocumentId: 'b' });
const failed = await client.getMigrationStatus({ organizationId: 'o', migrationId: 'nope' }).catch((error) => error);
console.log(JSON.stringify({ started, error: [failed instanceof ServiceError, failed.status, failed.httpStatus] }));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-'], { input: script, encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(JSON.parse(run.stdout)).toEqual({ started: { migrationId: 'm-1' }, error: [true, 'NOT_FOUND', 404] });
});
