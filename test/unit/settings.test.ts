import { describe, expect, test } from '@jest/globals';
import { BUILT_IN_DEFAULTS } from '#shared/api/channels.js';
import { requestHandlerOptions } from '#shared/platform/aws-clients.js';
import {
  credentialCacheSeconds,
  DEFAULT_CREDENTIAL_CACHE_SECONDS,
  DEFAULT_DEPENDENCY_TIMEOUT_MS,
  defaultRateLimit,
  deliveryDefaults,
  dependencyTimeoutMs,
  ENV,
  maxReceiveCount,
  stallLimitSeconds,
} from '#shared/platform/environment.js';

describe('settings a function reads from its environment at cold start', () => {
  test('credential cache seconds: unset or empty is the default, a number in range is used', () => {
    expect(credentialCacheSeconds({})).toBe(DEFAULT_CREDENTIAL_CACHE_SECONDS);
    expect(credentialCacheSeconds({ [ENV.credentialCacheSeconds]: '' })).toBe(DEFAULT_CREDENTIAL_CACHE_SECONDS);
    expect(credentialCacheSeconds({ [ENV.credentialCacheSeconds]: '0' })).toBe(0);
    expect(credentialCacheSeconds({ [ENV.credentialCacheSeconds]: '3600' })).toBe(3600);
  });

  test.each(['abc', '-1', '1.5', '3601'])(
    'credential cache seconds %p fails naming the variable and range',
    (value) => {
      expect(() => credentialCacheSeconds({ [ENV.credentialCacheSeconds]: value })).toThrow(
        `Environment variable ${ENV.credentialCacheSeconds} must be a whole number of seconds from 0 to 3600`,
      );
    },
  );

  test('dependency timeout: 1 s unless set (the deployed functions leave it unset), for connecting and a silent socket alike', () => {
    expect(DEFAULT_DEPENDENCY_TIMEOUT_MS).toBe(1_000);
    expect(dependencyTimeoutMs({})).toBe(1_000);
    expect(requestHandlerOptions({})).toEqual({ connectionTimeout: 1_000, socketTimeout: 1_000 });
    expect(requestHandlerOptions({ [ENV.dependencyTimeoutMs]: '5000' })).toEqual({
      connectionTimeout: 5_000,
      socketTimeout: 5_000,
    });
  });

  test.each(['abc', '0', '2.5', '60001'])('dependency timeout %p fails naming the variable and range', (value) => {
    expect(() => dependencyTimeoutMs({ [ENV.dependencyTimeoutMs]: value })).toThrow(
      `Environment variable ${ENV.dependencyTimeoutMs} must be a whole number of milliseconds from 1 to 60000`,
    );
  });

  test('the default rate limit: none unless set, the burst twice the rate unless set', () => {
    expect(defaultRateLimit({})).toBeUndefined();
    expect(defaultRateLimit({ [ENV.rateLimitPerSecond]: '0', [ENV.rateLimitBurst]: '5' })).toBeUndefined();
    expect(defaultRateLimit({ [ENV.rateLimitPerSecond]: '10' })).toEqual({ perSecond: 10, burst: 20 });
    expect(defaultRateLimit({ [ENV.rateLimitPerSecond]: ' 10 ', [ENV.rateLimitBurst]: '1' })).toEqual({
      perSecond: 10,
      burst: 1,
    });
  });

  test.each([
    [{ [ENV.rateLimitPerSecond]: '-1' }, `${ENV.rateLimitPerSecond} must be a whole number of requests per second`],
    [{ [ENV.rateLimitPerSecond]: '100001' }, `${ENV.rateLimitPerSecond} must be a whole number`],
    [{ [ENV.rateLimitPerSecond]: '1e400' }, `${ENV.rateLimitPerSecond} must be a whole number`],
    [
      { [ENV.rateLimitPerSecond]: '5', [ENV.rateLimitBurst]: '0' },
      `${ENV.rateLimitBurst} must be a whole number of requests`,
    ],
    [{ [ENV.rateLimitPerSecond]: '5', [ENV.rateLimitBurst]: 'ten' }, `${ENV.rateLimitBurst} must be a whole number`],
  ])('a rate limit setting out of range fails naming the variable: %p', (env, message) => {
    expect(() => defaultRateLimit(env)).toThrow(`Environment variable ${message}`);
  });

  test("a queue's maxReceiveCount is required and at least 1; the stall limit is optional", () => {
    expect(maxReceiveCount('migrations', { [ENV.migrationMaxReceiveCount]: '5' })).toBe(5);
    for (const value of [undefined, '', '0', '2.5', 'x']) {
      expect(() => maxReceiveCount('erasures', { [ENV.erasureMaxReceiveCount]: value })).toThrow(
        `Environment variable ${ENV.erasureMaxReceiveCount} must be a whole number, at least 1`,
      );
    }
    expect(stallLimitSeconds({})).toBeUndefined();
    expect(stallLimitSeconds({ [ENV.migrationStallLimitSeconds]: '90' })).toBe(90);
    expect(() => stallLimitSeconds({ [ENV.migrationStallLimitSeconds]: '0' })).toThrow(
      `Environment variable ${ENV.migrationStallLimitSeconds} must be a whole number of seconds, at least 1`,
    );
  });

  test('notification defaults: built-in unless the deployment overrides a channel', () => {
    expect(deliveryDefaults({})).toEqual(BUILT_IN_DEFAULTS);
    expect(deliveryDefaults({ [ENV.defaultSlack]: 'ALL', [ENV.defaultInbox]: '' })).toEqual({
      ...BUILT_IN_DEFAULTS,
      slack: 'ALL',
    });
  });

  test('a notification default outside ALL, MINE, NONE fails naming the variable', () => {
    expect(() => deliveryDefaults({ [ENV.defaultEmail]: 'mine' })).toThrow(
      `Environment variable ${ENV.defaultEmail} must be one of ALL, MINE, NONE`,
    );
  });
});
