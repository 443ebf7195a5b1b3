import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { dataPaths } from '#local/data-dir.js';
import { startEmbeddedDynamo } from '#local/dynamo.js';
import { REPO_ROOT } from '#service/repository-root.js';
import { runCredentialsCommand } from '#tools/credentials/command.js';
import { runMigrationsCommand } from '#tools/migrations/command.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// The credentials command against the local store: while a local server runs on the data
// directory (talking to its DynamoDB), and on its own (opening the directory's files).
let dataDir: string;
let service: LocalService | undefined;

/** A CLI command (credentials unless told) on a data directory (the suite's unless told). */
const run = async (
  args: string[],
  now?: Date,
  { command = runCredentialsCommand, dir = dataDir }: { command?: typeof runCredentialsCommand; dir?: string } = {},
) => {
  const out: string[] = [];
  const err: string[] = [];
  // A deployed table or another endpoint is the target instead (the two cannot be combined).
  const elsewhere = args.some((arg) => ['--table', '--region', '--endpoint', '--data-dir'].includes(arg));
  const code = await command([...args, ...(elsewhere ? [] : ['--data-dir', dir])], {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    env: {},
    ...(now ? { now: () => now } : {}),
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
};

/** Runs `body` with an AWS profile of `config` and no region or credentials in the environment. */
const withAwsProfile = async <T>(config: string, env: Record<string, string>, body: () => Promise<T>): Promise<T> => {
  const files = await mkdtemp(join(tmpdir(), 'aws-profile-'));
  const saved = { ...process.env };
  try {
    await writeFile(join(files, 'config'), config);
    await writeFile(
      join(files, 'credentials'),
      '[default]\naws_access_key_id = local\naws_secret_access_key = local\n',
    );
    for (const name of [
      'AWS_REGION',
      'AWS_DEFAULT_REGION',
      'AWS_PROFILE',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
    ]) {
      delete process.env[name];
    }
    Object.assign(process.env, {
      AWS_CONFIG_FILE: join(files, 'config'),
      AWS_SHARED_CREDENTIALS_FILE: join(files, 'credentials'),
      ...env,
    });
    return await body();
  } finally {
    process.env = saved;
    await rm(files, { recursive: true, force: true });
  }
};

const createJson = async (args: string[], now?: Date) => {
  const result = await run(['create', ...args, '--json'], now);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout) as { apiKey: string; token: string; organizationIds: string[] | '*' };
};

const setConfig = (headers: Record<string, string>, organizationId = 'acme') =>
  (service as LocalService).call(
    '/v2/notifications/config/set',
    { organizationId, userIds: ['u'], config: { inbox: 'ALL' } },
    { headers },
  );

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'credentials-cli-'));
  service = await startLocalService({ inMemory: false, dataDir });
});
afterAll(async () => {
  await service?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('while the local server runs on the data directory', () => {
  test('create prints the key and the token once; the credential works for its organizations only', async () => {
    const text = await run(['create', '--organizations', 'acme,beta', '--name', 'billing service']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("the running local server's store");
    const apiKey = text.stdout.match(/x-service-api-key: +(\S+)/)?.[1] as string;
    const token = text.stdout.match(/x-service-auth-token: +(\S+)/)?.[1] as string;
    expect(text.stdout.split(token)).toHaveLength(2);
    expect(text.stdout).toMatch(/shown only this once/);

    const headers = service?.authHeaders(apiKey, token) as Record<string, string>;
    expect((await setConfig(headers, 'acme')).status).toBe(200);
    expect((await setConfig(headers, 'beta')).status).toBe(200);
    expect((await setConfig(headers, 'gamma')).status).toBe(403);

    // Listing never shows the token, and shows at most a short prefix of its hash.
    const list = await run(['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(apiKey);
    expect(list.stdout).toContain('billing service');
    expect(list.stdout).not.toContain(token);
    const listJson = await run(['list', '--json']);
    const records = JSON.parse(listJson.stdout) as Record<string, unknown>[];
    expect(records.find((r) => r.apiKey === apiKey)).toEqual({
      apiKey,
      status: 'active',
      name: 'billing service',
      organizationIds: ['acme', 'beta'],
      createdAt: expect.any(String),
      expiresAt: null,
      revokedAt: null,
      scopes: ['read', 'write', 'resolve'],
      rateLimit: null,
      tokenHashPrefix: expect.stringMatching(/^[0-9a-f]{8}$/),
    });
    expect(records.find((r) => r.apiKey === service?.apiKey)).toMatchObject({ organizationIds: '*', name: 'local' });
  });

  test('scopes narrow a credential: a dispatcher that only resolves cannot set or erase', async () => {
    const { apiKey, token } = await createJson([
      '--organizations',
      'acme',
      '--scopes',
      'resolve',
      '--rate-limit',
      '50',
    ]);
    const headers = service?.authHeaders(apiKey, token) as Record<string, string>;
    const resolve = await service?.call(
      '/v2/notifications/config/resolve',
      { organizationId: 'acme', documentId: 'doc-1', userIds: ['u'] },
      { headers },
    );
    expect(resolve?.status).toBe(200);
    const set = await setConfig(headers);
    expect(set.status).toBe(403);
    expect(set.body.error?.message).toContain('"write"');
    const erase = await service?.call(
      '/v2/organizations/users/erase',
      { organizationId: 'acme', userId: 'u' },
      { headers },
    );
    expect(erase?.status).toBe(403);
    const record = (JSON.parse((await run(['list', '--json'])).stdout) as Record<string, unknown>[]).find(
      (r) => r.apiKey === apiKey,
    );
    expect(record).toMatchObject({ scopes: ['resolve'], rateLimit: { perSecond: 50, burst: 100 } });
  });

  test.each([
    [
      ['--scopes', 'read,delete'],
      /--scopes takes a comma-separated list of read, write, resolve, migrate, erase, admin/,
    ],
    [['--burst', '10'], /--burst needs --rate-limit/],
    [['--rate-limit', '0'], /--rate-limit must be a whole number from 1/],
  ])('create %j is refused with exit code 2', async (args, message) => {
    const result = await run(['create', '--organizations', 'acme', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  test('a revoked key gets 401, and revoking twice keeps the first time', async () => {
    const { apiKey, token } = await createJson(['--organizations', '*']);
    const headers = service?.authHeaders(apiKey, token) as Record<string, string>;
    expect((await setConfig(headers)).status).toBe(200);

    const revoked = await run(['revoke', '--api-key', apiKey]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`Revoked ${apiKey}`));
    // Locally the way to end the cache time at once is a restart.
    expect(revoked.stdout).toContain('restarting npm start ends that at once');
    expect((await setConfig(headers)).status).toBe(401);

    const first = JSON.parse((await run(['revoke', '--api-key', apiKey, '--json'])).stdout).revokedAt;
    const again = await run(['revoke', '--api-key', apiKey, '--json'], new Date(Date.now() + 60_000));
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'revoked', revokedAt: first });
  });

  test('revoking an unknown key fails with exit code 1', async () => {
    const result = await run(['revoke', '--api-key', 'ak_nobody']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(/no credential with api key "ak_nobody"/),
    });
  });

  test('expiry: --expires-in-days counts from now; an expired credential gets 401', async () => {
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    const expired = await createJson(['--organizations', 'acme', '--expires-in-days', '1'], twoDaysAgo);
    expect(
      (await setConfig(service?.authHeaders(expired.apiKey, expired.token) as Record<string, string>)).status,
    ).toBe(401);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const valid = await createJson(['--organizations', 'acme', '--expires-at', later]);
    expect(valid).toMatchObject({ expiresAt: later, status: 'active' });
    expect((await setConfig(service?.authHeaders(valid.apiKey, valid.token) as Record<string, string>)).status).toBe(
      200,
    );
  });
});

describe('on its own', () => {
  test('opens the data directory itself once the server stopped: the credentials persisted', async () => {
    await service?.close();
    service = undefined;
    const list = await run(['list', '--json']);
    expect(list.code).toBe(0);
    const statuses = (JSON.parse(list.stdout) as { status: string; name: string | null }[]).map((c) => c.status);
    expect(statuses).toEqual(expect.arrayContaining(['active', 'revoked', 'expired']));
    const created = await run(['create', '--organization', 'a,b with a comma', '--organization', 'c']);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`the local store in ${dataDir}`);
    // Quoted where it could read as several ids.
    expect(created.stdout).toContain('organizations: "a,b with a comma", c\n');
  });

  test('an organization id with a direction mark (a valid id) is shown escaped, in create and list alike', async () => {
    const created = await run(['create', '--organizations', 'evil\u202eusers']);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('organizations: evil\\u202eusers\n');
    const listed = await run(['list']);
    expect(listed.stdout).toContain('evil\\u202eusers');
    expect(listed.stdout).not.toContain('\u202e');
  });

  test('says clearly when another process holds the files', async () => {
    const holder = await startEmbeddedDynamo({ path: dataPaths(dataDir).dynamo });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const result = await run(['list']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/in use by another process/);
    } finally {
      await holder.close();
    }
  });
});

describe('command line errors', () => {
  test.each([
    [[], /a command is required/],
    [['frob'], /unknown command "frob"/],
    [['create'], /--organizations/],
    [['create', '--organizations', '*,acme'], /cannot be combined/],
    [['create', '--organizations', 'a\u0001b'], /control characters/],
    [['create', '--organizations', 'acme', '--expires-at', '2001-01-01T00:00:00Z'], /in the past/],
    // Date.parse alone would take each of these (March 2, the machine's zone, a guess).
    [['create', '--organizations', 'acme', '--expires-at', '2030-02-30T00:00:00Z'], /is not an ISO-8601 time/],
    [
      ['create', '--organizations', 'acme', '--expires-at', '2030-01-01T00:00'],
      /a time needs seconds, and Z or an offset/,
    ],
    [['create', '--organizations', 'acme', '--expires-at', 'Jan 1 2030'], /is not an ISO-8601 time/],
    [['create', '--organizations', 'acme', '--name', 'evil\u001b[31mred'], /--name must not hold control characters/],
    [['create', '--organizations', 'acme', '--name', 'two\nlines'], /--name must not hold control characters/],
    [['create', '--organizations', 'acme', '--name', 'a\u202eb'], /--name must not hold control characters/],
    [['create', '--organizations', 'acme', '--expires-in-days', 'soon'], /positive number of days/],
    [['create', '--organizations', 'acme', '--api-key', 'x'], /--api-key does not apply to create/],
    [['revoke'], /--api-key/],
    [['list', '--table', 'Credentials'], /--region/],
    [['list', '--bogus'], /Unknown option '--bogus'/],
    [
      ['list', '--table', 'Credentials', '--region', 'eu-west-1', '--data-dir', '/tmp/x'],
      /--data-dir cannot be combined with --table/,
    ],
    [
      ['list', '--endpoint', 'http://127.0.0.1:1', '--data-dir', '/tmp/x'],
      /--data-dir cannot be combined with --endpoint/,
    ],
  ])('%j: exit code 2 and a clear message', async (args, message) => {
    // No region anywhere (the local server of earlier tests set AWS_REGION in this process).
    const result = await withAwsProfile('', {}, () => run(args));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  test('revoke of a key no credential can have (3,000 characters): exit 1, no credential, DynamoDB not asked', async () => {
    const result = await run(['revoke', '--api-key', 'k'.repeat(3_000)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^credentials: no credential with api key "k{3000}"$/);
  });

  test('--table without --region takes the region from the AWS profile, as the AWS CLI does', async () => {
    // The "deployed" table is a local DynamoDB's: only the region must come from the profile.
    const dynamo = await startEmbeddedDynamo({});
    try {
      const result = await withAwsProfile(
        '[default]\nregion = eu-west-3\n',
        { AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint },
        () => run(['list', '--table', 'credentials']),
      );
      // The table does not exist there: what matters is that the command got as far as asking it, in eu-west-3.
      expect(result.stderr).not.toMatch(/needs a region/);
      expect(`${result.stdout}${result.stderr}`).toContain('table credentials in eu-west-3');
    } finally {
      await dynamo.close();
    }
  });

  test('--help prints the usage', async () => {
    const result = await run(['--help']);
    expect(result).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: npm run credentials') });
  });

  test('the entry point sets the exit code', async () => {
    const tsx = join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
    const failure = await promisify(execFile)(tsx, ['tools/credentials/main.ts', 'frob'], { cwd: REPO_ROOT }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown command "frob"') });
  });
});

describe('a data directory that holds no store yet (a new checkout, a mistyped DATA_DIR)', () => {
  test('list, revoke and the migrations tool say so and create nothing; create makes the store', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'no-store-'));
    const dir = join(parent, 'data');
    try {
      for (const [command, args] of [
        [runCredentialsCommand, ['list']],
        [runCredentialsCommand, ['revoke', '--api-key', 'ak_nothing']],
        [runMigrationsCommand, ['list-stuck']],
      ] as const) {
        const answer = await run([...args], undefined, { command, dir });
        expect(answer).toEqual({
          code: 1,
          stdout: '',
          stderr: expect.stringMatching(new RegExp(`^[a-z]+: no local store in ${dir} \\(npm start creates it there`)),
        });
        expect(existsSync(dir)).toBe(false);
      }
      const created = await run(['create', '--organizations', 'acme'], undefined, { dir });
      expect(created.code).toBe(0);
      expect(created.stdout).toContain(`the local store in ${dir}`);
      expect((await run(['list'], undefined, { dir })).stdout).toContain('1 credential(s)');
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});
