import { spawnSync } from 'node:child_process';
import { expect, test } from '@jest/globals';
import { build } from 'esbuild';
import { REPO_ROOT } from '#service/repository-root.js';
import { subpathImports } from '../support/bundle.js';

// The client must run on fetch alone: its bundle holds only its own modules (two of them generated, zod-free).
test('the client bundles without zod or any other package, and runs on plain Node with a fake fetch', async () => {
  const result = await build({
    entryPoints: [`${REPO_ROOT}/client/index.ts`],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    metafile: true,
    logLevel: 'silent',
    plugins: [subpathImports],
  });
  const inputs = Object.keys(result.metafile.inputs)
    .map((input) => input.replace(`${REPO_ROOT}/`, ''))
    .sort();
  expect(inputs).toEqual([
    'client/answer.ts',
    'client/client.ts',
    'client/error-statuses.ts',
    'client/errors.ts',
    'client/index.ts',
    'client/operations.ts',
    'client/retry.ts',
    'client/wait.ts',
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
