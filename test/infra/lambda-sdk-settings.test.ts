import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { LAMBDA_SDK_SETTINGS } from '#service/lambda-sdk-settings.js';
import { REPO_ROOT } from '#service/repository-root.js';

// The SDK settings the stack puts in every function's environment (service/lambda-sdk-settings.ts):
// each must be the SDK's own default (behaviour unchanged), and each must be found in the
// environment, before the SDK would go looking in the shared config files. Each case runs in a
// fresh process (test/support/sdk-settings-probe.mjs): the SDK remembers some settings per process.

const PROBE = join(REPO_ROOT, 'test/support/sdk-settings-probe.mjs');

/** A config file that says the opposite of every setting (the SDK's names for them in a profile). */
const CONTRARY_CONFIG = `[default]
defaults_mode = standard
retry_mode = adaptive
use_fips_endpoint = true
use_dualstack_endpoint = true
account_id_endpoint_mode = disabled
auth_scheme_preference = sigv4a
ignore_configured_endpoint_urls = true
disable_clock_skew_correction = true
sdk_ua_app_id = from-the-file
`;

type Resolved = Record<'dynamodb' | 'sqs', Record<string, unknown>>;

let dir: string;
let contraryFile: string;

/** The settings as both clients resolve them, with or without the stack's variables, with or without a config file. */
const probe = async ({ settings, configFile }: { settings: boolean; configFile?: string }): Promise<Resolved> => {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_CONFIG_FILE: configFile ?? join(dir, 'no-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
    ...(settings ? LAMBDA_SDK_SETTINGS : {}),
  };
  const { stdout } = await promisify(execFile)(process.execPath, [PROBE], { env, cwd: REPO_ROOT });
  return JSON.parse(stdout) as Resolved;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sdk-settings-'));
  contraryFile = join(dir, 'contrary-config');
  await writeFile(contraryFile, CONTRARY_CONFIG);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("each setting is the SDK's default: only the app id is new", async () => {
  const [defaults, pinned] = await Promise.all([probe({ settings: false }), probe({ settings: true })]);
  for (const client of ['dynamodb', 'sqs'] as const) {
    const { AWS_SDK_UA_APP_ID: appId, ...rest } = pinned[client];
    const { AWS_SDK_UA_APP_ID: defaultAppId, ...defaultRest } = defaults[client];
    expect({ client, settings: rest }).toEqual({ client, settings: defaultRest });
    expect(defaultAppId).toBeUndefined();
    expect(appId).toBe(LAMBDA_SDK_SETTINGS.AWS_SDK_UA_APP_ID);
  }
  // Every setting is probed (the account id endpoint mode is DynamoDB's own).
  expect(Object.keys(pinned.dynamodb).sort()).toEqual(Object.keys(LAMBDA_SDK_SETTINGS).sort());
  expect(Object.keys(pinned.sqs)).toHaveLength(Object.keys(LAMBDA_SDK_SETTINGS).length - 1);
});

test('each setting is found in the environment: a config file that says otherwise is not read for it', async () => {
  const [fromFile, fromEnvironment, pinned] = await Promise.all([
    probe({ settings: false, configFile: contraryFile }),
    probe({ settings: true, configFile: contraryFile }),
    probe({ settings: true }),
  ]);
  for (const client of ['dynamodb', 'sqs'] as const) {
    // Without the variables the SDK goes on to the file for every setting (the file names each right)...
    for (const [setting, value] of Object.entries(fromEnvironment[client])) {
      expect({ client, setting, value: fromFile[client][setting] }).not.toEqual({ client, setting, value });
    }
    // ...and with them it stops at the environment.
    expect(fromEnvironment[client]).toEqual(pinned[client]);
  }
});
