import { describe, expect, test } from '@jest/globals';
import { App } from 'aws-cdk-lib';
import { createServiceApp } from '#infra/service-app.js';
import { isProductionStage, parseServiceConfig, readServiceConfig } from '#infra/stage-settings.js';

describe('deployment settings from CDK context', () => {
  test('every key has a default', () => {
    expect(parseServiceConfig({})).toEqual({
      stage: 'dev',
      defaultInbox: 'ALL',
      defaultEmail: 'MINE',
      defaultSlack: 'NONE',
      credentialCacheSeconds: 60,
      throttleRate: 50,
      throttleBurst: 100,
      consumerMaxConcurrency: 5,
      logLevel: 'INFO',
      logRetentionDays: 30,
    });
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
    ['consumerMaxConcurrency', '1'],
    ['alarmEmail', 'not-an-address'],
    ['logLevel', 'TRACE'],
    ['logRetentionDays', '8'],
  ])('rejects %s=%s and names the key', (key, value) => {
    expect(() => parseServiceConfig({ [key]: value })).toThrow(new RegExp(`Invalid CDK context: .*${key}`));
  });

  test('reads app context (cdk.json and -c flags)', () => {
    const app = new App({ context: { stage: 'prod', alarmEmail: 'ops@example.com' } });
    const config = readServiceConfig(app.node);
    expect(config.alarmEmail).toBe('ops@example.com');
    expect(isProductionStage(config)).toBe(true);
    expect(isProductionStage(parseServiceConfig({ stage: 'production-like' }))).toBe(false);
  });

  test('an invalid setting stops the app before any resource is built', () => {
    expect(() => createServiceApp({ context: { throttleRate: '-5' } })).toThrow(/throttleRate/);
  });
});
