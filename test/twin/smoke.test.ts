import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { REPO_ROOT } from '#service/repository-root.js';
import { hashToken } from '#shared/auth/credential.js';
import { logger } from '#shared/platform/logger.js';
import { OPERATIONS } from '#tools/openapi/operations.js';
import { runSmokeCommand } from '#tools/smoke/command.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// `npm run smoke` against the twin, as an operator runs it against a stage: every check passes on
// a healthy service, and a deviation fails the run with one line per failed check.
const exec = promisify(execFile);
let service: LocalService;

beforeAll(async () => {
  // Loaded (through the operations table) before the service could set its level.
  logger.setLogLevel('SILENT');
  service = await startLocalService();
});
afterAll(async () => {
  await service?.close();
});

const smoke = async (args: string[], fetchImpl?: typeof fetch) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runSmokeCommand(args, {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    env: {},
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
};
const target = () => ['--url', service.baseUrl, '--key', service.apiKey, '--token', service.token];

test('npm run smoke passes against npm start and calls every operation', async () => {
  const { stdout } = await exec(
    'npm',
    ['run', '--silent', 'smoke', '--', '--url', service.baseUrl, '--key', service.apiKey, '--token', service.token],
    { cwd: REPO_ROOT, timeout: 60_000 },
  );
  expect(stdout).not.toContain('FAIL');
  expect(stdout).toMatch(/^ok {4}migrate\/status: completes, every entry moved/m);
  expect(stdout).toMatch(/checks, 0 failed/);
  const covered = /operations covered: (.*)\./.exec(stdout)?.[1]?.split(', ') ?? [];
  expect(covered.sort()).toEqual(OPERATIONS.map((operation) => operation.operationId).sort());
}, 90_000);

test('a credential without the organization: exit 1, each failed check named with the answer it got', async () => {
  await service.doc.send(
    new PutCommand({
      TableName: service.tables.credentials,
      Item: {
        apiKey: 'ak_smoke-elsewhere',
        tokenHash: hashToken('st_smoke-elsewhere'),
        organizationIds: ['elsewhere'],
        createdAt: new Date().toISOString(),
      },
    }),
  );
  const result = await smoke([
    '--url',
    service.baseUrl,
    '--key',
    'ak_smoke-elsewhere',
    '--token',
    'st_smoke-elsewhere',
    '--timeout',
    '5',
  ]);
  expect(result.code).toBe(1);
  expect(result.stdout).toMatch(/^FAIL {2}config\/set: two users on a document/m);
  expect(result.stderr).toContain(
    'config/set: two users on a document: answered PERMISSION_DENIED (HTTP 403): The credential is not granted organization "smoke".',
  );
  // The checks that do not depend on the organization still pass.
  expect(result.stdout).toMatch(/^ok {4}authentication: a wrong token is refused/m);
  // And the summary counts an operation covered only when its checks passed.
  const summary = /operations covered: (.*); failing: (.*)\./.exec(result.stdout);
  expect(summary?.[1]?.split(', ')).not.toContain('setConfig');
  expect(summary?.[2]?.split(', ')).toContain('setConfig');
});

test('a credential made as the runbook says (its organization and scopes) passes every check; key and token from the environment', async () => {
  const runbook = await readFile(join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
  const create = runbook
    .split('\n')
    .find((line) => line.includes('credentials -- create') && line.includes('smoke-test'));
  const flag = (name: string) => create?.match(new RegExp(`--${name} (\\S+)`))?.[1]?.split(',');
  await service.doc.send(
    new PutCommand({
      TableName: service.tables.credentials,
      Item: {
        apiKey: 'ak_smoke-runbook',
        tokenHash: hashToken('st_smoke-runbook'),
        organizationIds: flag('organizations'),
        // Without --scopes, the credentials command grants its default scopes.
        scopes: flag('scopes') ?? ['read', 'write', 'resolve'],
        createdAt: new Date().toISOString(),
      },
    }),
  );
  const out: string[] = [];
  const err: string[] = [];
  const code = await runSmokeCommand([], {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    env: { BASE_URL: service.baseUrl, API_KEY: 'ak_smoke-runbook', AUTH_TOKEN: 'st_smoke-runbook' },
  });
  expect({ code, failed: out.filter((line) => line.startsWith('FAIL')), err }).toEqual({
    code: 0,
    failed: [],
    err: [],
  });
}, 90_000);

test("a token given on the command line works, with a warning that it shows in npm's echo and ps", async () => {
  const result = await smoke([...target(), '--timeout', '30']);
  expect(result.code).toBe(0);
  expect(result.stderr).toBe(
    "npm run smoke: --token is visible in npm's echo of the command and in ps; set AUTH_TOKEN instead.",
  );
}, 90_000);

test('an answer that deviates fails its check, saying what was expected', async () => {
  // The service answers config/get with every channel from the default layer.
  const tampering: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (!String(input).endsWith('/config/get')) return response;
    const body = (await response.json()) as { result: { data: { source: Record<string, string> }[] } };
    for (const item of body.result.data) item.source = { inbox: 'default', email: 'default', slack: 'default' };
    return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
  };
  const result = await smoke(target(), tampering);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(
    'config/get: the stored entry and the layer of each channel: source is {"inbox":"default","email":"default","slack":"default"}, expected {"inbox":"organization","email":"document","slack":"document"}',
  );
});

test('an incomplete command line: exit 2 with the usage', async () => {
  const result = await smoke(['--url', service.baseUrl, '--key', service.apiKey]);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('missing AUTH_TOKEN (or --token)');
  expect(result.stderr).toContain('Usage: npm run smoke');
});
