import { describe, expect, test } from '@jest/globals';
import { BUILT_IN_DEFAULTS } from '#shared/api/channels.js';
import { requestHandlerOptions } from '#shared/platform/aws-clients.js';
import {
  credentialCacheSeconds,
  DEFAULT_CREDENTIAL_CACHE_SECONDS,
  DEFAULT_DEPENDENCY_TIMEOUT_MS,
  deliveryDefaults,
  dependencyTimeoutMs,
  ENV,
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
