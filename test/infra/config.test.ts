import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { App } from 'aws-cdk-lib';
import { CURRENTLY_RECOMMENDED_FLAGS } from 'aws-cdk-lib/cx-api';
import { createServiceApp } from '#infra/service-app.js';
import { parseServiceConfig, readServiceConfig } from '#infra/stage-settings.js';
import { REPO_ROOT } from '#service/repository-root.js';
import { CDK_JSON_CONTEXT } from './synth.js';

const committed = CDK_JSON_CONTEXT.stages as Record<string, Record<string, unknown>>;
const PROTECTED = { protectData: true, alarmEmail: 'ops@example.com', account: '123456789012', region: 'eu-west-1' };

describe('an ad-hoc stage: settings from -c flags', () => {
  test('every key has a default', () => {
    expect(parseServiceConfig({})).toEqual({
      stage: 'dev',
      protectData: false,
      defaultInbox: 'ALL',
      defaultEmail: 'MINE',
      defaultSlack: 'NONE',
      credentialCacheSeconds: 60,
      policyCacheSeconds: 10,
      historyRetentionDays: 365,
      throttleRate: 50,
      throttleBurst: 100,
      rateLimitPerSecond: 20,
      rateLimitBurst: 40,
      linkThrottleRate: 50,
      linkThrottleBurst: 200,
      importWritesPerSecond: 2000,
      consumerMaxConcurrency: 5,
      accountConcurrencyLimit: 1000,
      logLevel: 'INFO',
      logRetentionDays: 30,
      linkEvidenceClient: true,
    });
  });

  test('history retention up to 3,650 days (proof of consent over years); the link evidence keeps the client unless told', () => {
    expect(parseServiceConfig({ historyRetentionDays: '3650' }).historyRetentionDays).toBe(3650);
    expect(() => parseServiceConfig({ historyRetentionDays: '3651' })).toThrow(/historyRetentionDays/);
    expect(parseServiceConfig({ linkEvidenceClient: 'false' }).linkEvidenceClient).toBe(false);
    expect(parseServiceConfig({ linkEvidenceClient: 'true' }).linkEvidenceClient).toBe(true);
    expect(parseServiceConfig({ importWritesPerSecond: '500' }).importWritesPerSecond).toBe(500);
    expect(() => parseServiceConfig({ importWritesPerSecond: '0' })).toThrow(/importWritesPerSecond/);
    expect(() => parseServiceConfig({ linkEvidenceClient: 'maybe' })).toThrow(/linkEvidenceClient/);
  });

  test('command-line strings are coerced; an empty value means unset', () => {
    const config = parseServiceConfig({
      stage: 'staging-2',
      throttleRate: '200',
      throttleBurst: '400',
      credentialCacheSeconds: '0',
      consumerMaxConcurrency: '20',
      logRetentionDays: '90',
      alarmEmail: '',
      defaultSlack: 'ALL',
    });
    expect(config).toMatchObject({
      stage: 'staging-2',
      throttleRate: 200,
      throttleBurst: 400,
      credentialCacheSeconds: 0,
      consumerMaxConcurrency: 20,
      logRetentionDays: 90,
      defaultSlack: 'ALL',
    });
    expect(config.alarmEmail).toBeUndefined();
  });

  test.each([
    ['stage', 'Prod!'],
    ['stage', 'a-very-long-stage-name-indeed'],
    ['defaultInbox', 'SOME'],
    ['throttleRate', '0'],
    ['throttleBurst', 'lots'],
    ['credentialCacheSeconds', '3601'],
    ['policyCacheSeconds', '301'],
    ['consumerMaxConcurrency', '1'],
    ['accountConcurrencyLimit', '5'],
    ['alarmEmail', 'not-an-address'],
    ['account', '12345'],
    ['region', 'Europe'],
    ['logLevel', 'TRACE'],
    ['logRetentionDays', '8'],
    ['linkThrottleRate', '0'],
    ['linksBaseUrl', 'http://links.example.com'],
    ['linksBaseUrl', 'https://links.example.com/?x=1'],
  ])('rejects %s=%s and names the key', (key, value) => {
    expect(() => parseServiceConfig({ [key]: value })).toThrow(new RegExp(`Invalid CDK context: .*${key}`));
  });

  test('protectData cannot be passed with -c: a protected stage must be committed', () => {
    expect(() => parseServiceConfig({ stage: 'mine', ...PROTECTED, protectData: 'true' })).toThrow(
      /protectData: a protected stage must be committed in cdk\.json \(context\.stages\.mine\)/,
    );
  });

  test('account and region go together', () => {
    expect(() => parseServiceConfig({ stage: 'mine', account: '123456789012' })).toThrow(
      'Invalid settings of stage mine: account and region go together',
    );
    expect(parseServiceConfig({ stage: 'mine', account: '123456789012', region: 'us-east-1' })).toMatchObject({
      account: '123456789012',
      region: 'us-east-1',
    });
  });

  test('a setting spelled in another case (-c throttlerate=20) is refused, naming the setting', () => {
    expect(() => parseServiceConfig({ stage: 'mine', throttlerate: '20' })).toThrow(
      'Invalid CDK context: throttlerate is not a setting; did you mean throttleRate?',
    );
    expect(() => readServiceConfig(new App({ context: { stage: 'mine', Stage: 'x' } }).node)).toThrow(
      'Invalid CDK context: Stage is not a setting; did you mean stage?',
    );
  });

  test('reads app context (cdk.json and -c flags)', () => {
    const app = new App({ context: { stage: 'feature-1', alarmEmail: 'ops@example.com' } });
    const config = readServiceConfig(app.node);
    expect(config.alarmEmail).toBe('ops@example.com');
    expect(config.protectData).toBe(false);
  });
});

describe('a stage committed in cdk.json', () => {
  test('cdk.json commits dev and a protected prod with an alarm address, an account and a region', () => {
    expect(Object.keys(committed).sort()).toEqual(['dev', 'prod']);
    const prod = parseServiceConfig({ stage: 'prod', stages: committed });
    expect(prod).toMatchObject({ stage: 'prod', protectData: true, throttleRate: 200, throttleBurst: 400 });
    expect(prod.alarmEmail).toMatch(/@/);
    expect(prod.account).toMatch(/^\d{12}$/);
    expect(prod.region).toMatch(/^[a-z]{2}-/);
    expect(parseServiceConfig({ stage: 'dev', stages: committed }).protectData).toBe(false);
  });

  test('-c stage=prod alone deploys the committed settings: nothing passed once is forgotten', () => {
    const stages = { prod: { ...PROTECTED, throttleRate: 300 } };
    expect(parseServiceConfig({ stage: 'prod', stages })).toMatchObject({ ...PROTECTED, throttleRate: 300 });
  });

  test('a -c setting for a committed stage is refused, naming where to change it', () => {
    expect(() => parseServiceConfig({ stage: 'prod', stages: { prod: PROTECTED }, throttleRate: '5' })).toThrow(
      'Stage prod is committed in cdk.json (context.stages.prod): change throttleRate there, not with -c',
    );
  });

  test.each(['alarmEmail', 'account', 'region'] as const)('a protected stage without %s is refused', (key) => {
    const { [key]: _left, ...rest } = PROTECTED;
    expect(() => parseServiceConfig({ stage: 'prod', stages: { prod: rest } })).toThrow(
      `Invalid cdk.json context.stages.prod: ${key}: required for a stage with protectData`,
    );
  });

  test('an unknown key in a committed stage is a typo, and refused', () => {
    expect(() => parseServiceConfig({ stage: 'prod', stages: { prod: { ...PROTECTED, throtleRate: 5 } } })).toThrow(
      /context\.stages\.prod: .*throtleRate/,
    );
  });
});

describe('feature flags', () => {
  // Unset, each one keeps an old behaviour and `cdk synth` warns about it; set, the template
  // only changed in benign ways (IAM statements merged and sorted) when they were added.
  test('cdk.json sets every flag aws-cdk-lib recommends, to the recommended value', () => {
    const unset = Object.entries(CURRENTLY_RECOMMENDED_FLAGS)
      .filter(([flag, value]) => JSON.stringify(CDK_JSON_CONTEXT[flag]) !== JSON.stringify(value))
      .map(([flag]) => flag);
    expect(unset).toEqual([]);
  });
});

describe('the app', () => {
  test('an invalid setting stops the app before any resource is built', () => {
    expect(() => createServiceApp({ context: { throttleRate: '-5' } })).toThrow(/throttleRate/);
  });

  // What `cdk synth -c stage=Prod` runs: cdk.json's context and the flag, in CDK_CONTEXT_JSON.
  test('invalid context prints one line, no stack trace, and exits 1', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'cdk-app-'));
    try {
      const run = spawnSync(join(REPO_ROOT, 'node_modules/.bin/tsx'), ['infra/app.ts'], {
        cwd: REPO_ROOT,
        env: {
          PATH: process.env.PATH,
          CDK_OUTDIR: outdir,
          CDK_CONTEXT_JSON: JSON.stringify({ ...CDK_JSON_CONTEXT, stage: 'Prod' }),
        },
        encoding: 'utf8',
      });
      expect(run.status).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim().split('\n')).toEqual([
        'Invalid CDK context: stage: lowercase letters, digits and dashes, starting with a letter, at most 20, ' +
          'got "Prod" (stages in cdk.json: dev, prod)',
      ]);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 60_000);
});
