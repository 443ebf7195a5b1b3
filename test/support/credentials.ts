import type { Credential } from '#shared/auth/credential.js';
import { hashToken } from '#shared/auth/credential.js';

export const TEST_TOKEN = 'st_test-token-value';

export const credentialRecord = (overrides: Partial<Credential> = {}): Credential => ({
  apiKey: 'ak_test',
  tokenHash: hashToken(TEST_TOKEN),
  organizationIds: ['org-1'],
  createdAt: '2026-01-01T00:00:00.000Z',
  name: 'test',
  ...overrides,
});

export const authHeaders = (apiKey = 'ak_test', token = TEST_TOKEN): Record<string, string> => ({
  'x-service-api-key': apiKey,
  'x-service-auth-token': token,
});
