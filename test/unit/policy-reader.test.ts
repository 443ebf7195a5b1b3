import { expect, test } from '@jest/globals';
import type { StoredPolicy } from '#shared/policy/model.js';
import { PolicyReader } from '#shared/policy/reader.js';

// The warm instance's policy cache (shared/policy/reader.ts), for a policy read alone or along
// with entries: a change reaches every read within the cache time, counted from the read's start.

const policy = (version: number): StoredPolicy => ({ organizationId: 'org', policy: {}, version });

test('a policy read along with entries is kept until the cache time after the read began, however long the read took', async () => {
  let now = 0;
  let version = 1;
  let gets = 0;
  const reader = new PolicyReader(
    {
      get: async () => {
        gets += 1;
        return policy(version);
      },
    },
    10,
    () => now,
  );
  const read = {
    alone: async () => 'entries',
    along: async () => {
      now += 4_000; // a large read, with backoff
      return { read: 'entries and policy', policy: policy(version) };
    },
  };
  expect(await reader.readAlong('org', read)).toEqual({ read: 'entries and policy', policy: policy(1) });
  version = 2;
  now = 9_999;
  expect(await reader.readAlong('org', read)).toEqual({ read: 'entries', policy: policy(1) });
  expect(await reader.get('org')).toEqual(policy(1));
  now = 10_000;
  expect(reader.cached('org')).toBeUndefined();
  expect((await reader.readAlong('org', read)).policy).toEqual(policy(2));
  expect(gets).toBe(0);
});

test('without a cache time every read brings the policy along', async () => {
  const reader = new PolicyReader({ get: async () => policy(1) }, 0, () => 0);
  let along = 0;
  const read = {
    alone: async () => 'entries',
    along: async () => {
      along += 1;
      return { read: 'entries', policy: policy(1) };
    },
  };
  await reader.readAlong('org', read);
  await reader.readAlong('org', read);
  expect(along).toBe(2);
});
