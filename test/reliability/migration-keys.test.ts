import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { lockKey, migrationKey } from '#shared/migration/keys.js';
import { unescapeKeyPart } from '#shared/preferences/keys.js';
import { FUZZ_RUNS } from '../support/fuzz/runs.js';

// The migrations table has its own keys: a record per migration id and a lock per
// (organization, document). Generation is biased towards the characters of the encoding.
const tricky = fc.constantFrom('#', '%', '2', '3', '5', 'L', 'O', 'C', 'K', 'M', 'I', '/', ':', ' ', 'é', '😀');
const id = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
  fc.array(tricky, { minLength: 1, maxLength: 12 }).map((chars) => chars.join('')),
);
const document = fc.record({ organizationId: id, documentId: id });
const runs = Math.max(FUZZ_RUNS, 2000);

describe('migration key encoding', () => {
  test('lock keys decode back to the organization and document they encode', () => {
    fc.assert(
      fc.property(document, ({ organizationId, documentId }) => {
        const parts = lockKey(organizationId, documentId).pk.split('#');
        expect(parts).toHaveLength(3);
        expect(parts[0]).toBe('LOCK');
        expect(unescapeKeyPart(parts[1] as string)).toBe(organizationId);
        expect(unescapeKeyPart(parts[2] as string)).toBe(documentId);
      }),
      { numRuns: runs },
    );
  });

  test('two different documents never share a lock (injective), across organizations too', () => {
    fc.assert(
      fc.property(document, document, (a, b) => {
        const same = a.organizationId === b.organizationId && a.documentId === b.documentId;
        const ka = lockKey(a.organizationId, a.documentId);
        const kb = lockKey(b.organizationId, b.documentId);
        return same === (ka.pk === kb.pk && ka.sk === kb.sk);
      }),
      { numRuns: runs },
    );
  });

  test('migration record keys are injective and never collide with a lock', () => {
    fc.assert(
      fc.property(id, id, document, (a, b, lock) => {
        const ka = migrationKey(a);
        const kb = migrationKey(b);
        const kl = lockKey(lock.organizationId, lock.documentId);
        return (a === b) === (ka.pk === kb.pk && ka.sk === kb.sk) && !(ka.pk === kl.pk && ka.sk === kl.sk);
      }),
      { numRuns: runs },
    );
  });

  test('separators cannot forge another organization’s lock', () => {
    expect(lockKey('a#b', 'c').pk).not.toBe(lockKey('a', 'b#c').pk);
    expect(lockKey('a%23b', 'c').pk).not.toBe(lockKey('a#b', 'c').pk);
  });
});
