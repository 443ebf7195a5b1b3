import { createHash } from 'node:crypto';
import { expect, test } from '@jest/globals';
import { newKeyringDocument, staticKeyring } from '#shared/links/keyring.js';
import type { LinkState, LinkStateReader } from '#shared/links/link-state.js';
import { openWithState } from '#shared/links/opened.js';
import { sealLink } from '#shared/links/token.js';

// A revoked link's page took some 3 ms against some 1 ms for an expired or altered token: the
// page is the same 404, the timing told which. Every well-formed token now costs the same work
// (opened.ts): unsealed, its state read, then judged. Measured as this process's CPU time per
// opening, against a reader whose read costs a fixed amount of CPU (as the SDK's work for the
// real read does), with the fates interleaved and many samples, so that a busy machine moves
// every fate alike.

const SAMPLES = 150;
const PER_SAMPLE = 3;
const TOLERANCE = 1.2;

const keys = staticKeyring(newKeyringDocument('k1'));
const WORK = Buffer.alloc(64 * 1024, 7);

/** The read: a fixed amount of CPU, and a revoked link's state is none. */
const reader: LinkStateReader = {
  read: async (link) => {
    const hash = createHash('sha256');
    for (let i = 0; i < 8; i += 1) hash.update(WORK);
    hash.digest();
    if (link.userId === 'revoked') return undefined;
    return { policy: { organizationId: link.organizationId, policy: {}, version: 0 } } as unknown as LinkState;
  },
};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

test('revoked, expired and altered tokens cost the same CPU to refuse (medians within 20%)', async () => {
  const now = new Date();
  const seconds = Math.floor(now.getTime() / 1000);
  const keyring = await keys.keyring();
  const scope = { organizationId: 'acme', channel: 'email' as const, purpose: 'unsubscribe' as const };
  const valid = await sealLink(
    { ...scope, userId: 'kept', issuedAt: seconds - 60, expiresAt: seconds + 3600 },
    keyring,
  );
  const middle = Math.floor(valid.length * 0.75);
  const tokens = {
    revoked: await sealLink(
      { ...scope, userId: 'revoked', issuedAt: seconds - 60, expiresAt: seconds + 3600 },
      keyring,
    ),
    expired: await sealLink({ ...scope, userId: 'kept', issuedAt: seconds - 7200, expiresAt: seconds - 3600 }, keyring),
    // One character of the ciphertext changed: the tag no longer matches.
    altered: `${valid.slice(0, middle)}${valid[middle] === 'A' ? 'B' : 'A'}${valid.slice(middle + 1)}`,
  };
  const open = (token: string) => openWithState({ keys, reader }, token, now, { entries: false }, 'unsubscribe');
  // Every one of them is refused, and the valid token opens (the fake reader's state is enough).
  for (const token of Object.values(tokens)) expect(await open(token)).toBeUndefined();
  expect(await open(valid)).toBeDefined();

  const fates = Object.keys(tokens) as (keyof typeof tokens)[];
  const cpu: Record<string, number[]> = Object.fromEntries(fates.map((fate) => [fate, []]));
  for (let round = 0; round < 10; round += 1) for (const fate of fates) await open(tokens[fate]); // warm
  for (let sample = 0; sample < SAMPLES; sample += 1) {
    // Each round in another order, so that no fate always follows the same one.
    const order = fates.map((_, i) => fates[(i + sample) % fates.length] as keyof typeof tokens);
    for (const fate of order) {
      const start = process.cpuUsage();
      for (let i = 0; i < PER_SAMPLE; i += 1) await open(tokens[fate]);
      const used = process.cpuUsage(start);
      cpu[fate]?.push(used.user + used.system);
    }
  }
  const medians = Object.fromEntries(fates.map((fate) => [fate, median(cpu[fate] as number[])]));
  const values = Object.values(medians);
  const ratio = Math.max(...values) / Math.min(...values);
  expect({ medians, withinTolerance: ratio <= TOLERANCE }).toEqual({ medians, withinTolerance: true });
}, 120_000);
