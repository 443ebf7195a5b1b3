import { describe, expect, test } from '@jest/globals';
import { Authenticator, UNKNOWN_KEY_CACHE_SECONDS } from '#shared/auth/authenticator.js';
import { type Credential, hashToken } from '#shared/auth/credential.js';
import type { CredentialStore } from '#shared/auth/store.js';

const TOKEN = 'st_valid-token';
const VALID: Credential = {
  apiKey: 'ak_valid',
  tokenHash: hashToken(TOKEN),
  organizationIds: '*',
  createdAt: '2026-01-01T00:00:00.000Z',
};

/** A store holding one credential, counting its reads per key. */
const countingStore = () => {
  const reads = new Map<string, number>();
  const store: CredentialStore = {
    get: async (apiKey) => {
      reads.set(apiKey, (reads.get(apiKey) ?? 0) + 1);
      return apiKey === VALID.apiKey ? VALID : undefined;
    },
    create: async () => undefined,
    list: async () => [VALID],
    revoke: async () => false,
  };
  return { store, reads };
};

describe('the credential cache', () => {
  test('a flood of unknown keys does not evict a valid credential (their cache is apart)', async () => {
    const { store, reads } = countingStore();
    const now = new Date('2026-06-01T00:00:00Z');
    const authenticator = new Authenticator(store, { cacheSeconds: 60, now: () => now });
    await authenticator.authenticate(VALID.apiKey, TOKEN);
    for (let i = 0; i < 3000; i += 1) {
      await expect(authenticator.authenticate(`ak_unknown${i}`, TOKEN)).rejects.toMatchObject({
        status: 'UNAUTHENTICATED',
      });
    }
    await authenticator.authenticate(VALID.apiKey, TOKEN);
    expect(reads.get(VALID.apiKey)).toBe(1);
  });

  test(`an unknown key is remembered for ${UNKNOWN_KEY_CACHE_SECONDS} s, then read again (a credential created meanwhile works after it)`, async () => {
    const { store, reads } = countingStore();
    let now = Date.parse('2026-06-01T00:00:00Z');
    const authenticator = new Authenticator(store, { cacheSeconds: 60, now: () => new Date(now) });
    const refuse = () => expect(authenticator.authenticate('ak_unknown', TOKEN)).rejects.toThrow();
    await refuse();
    await refuse();
    expect(reads.get('ak_unknown')).toBe(1);
    now += UNKNOWN_KEY_CACHE_SECONDS * 1000;
    await refuse();
    expect(reads.get('ak_unknown')).toBe(2);
  });
});
