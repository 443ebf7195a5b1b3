import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import {
  documentPartition,
  entryTableKey,
  escapeKeyPart,
  organizationPartition,
  parsePartition,
  unescapeKeyPart,
} from '#shared/preferences/keys.js';

// Identifiers may hold any character the contract allows; bias generation towards the
// characters that take part in the encoding.
const tricky = fc.constantFrom('#', '%', '2', '3', '5', 'D', 'O', 'C', 'R', 'G', '/', ':', ' ', 'é', '😀');
const id = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
  fc.array(tricky, { minLength: 1, maxLength: 12 }).map((chars) => chars.join('')),
);
const entry = fc.record({ organizationId: id, userId: id, documentId: fc.option(id, { nil: null }) });

describe('config key encoding', () => {
  test('escaping round-trips every identifier', () => {
    fc.assert(
      fc.property(id, (value) => unescapeKeyPart(escapeKeyPart(value)) === value),
      { numRuns: 2000 },
    );
  });

  test('partition keys decode back to the identifiers they encode', () => {
    fc.assert(
      fc.property(id, fc.option(id, { nil: null }), (organizationId, documentId) => {
        const pk =
          documentId === null ? organizationPartition(organizationId) : documentPartition(organizationId, documentId);
        expect(parsePartition(pk)).toEqual({ organizationId, documentId });
      }),
      { numRuns: 2000 },
    );
  });

  test('two different entries never share a table key (injective)', () => {
    fc.assert(
      fc.property(entry, entry, (a, b) => {
        const same = a.organizationId === b.organizationId && a.userId === b.userId && a.documentId === b.documentId;
        const ka = entryTableKey(a);
        const kb = entryTableKey(b);
        return same === (ka.pk === kb.pk && ka.sk === kb.sk);
      }),
      { numRuns: 5000 },
    );
  });

  test('separators inside identifiers cannot forge another organization or document', () => {
    expect(documentPartition('a#b', 'c')).not.toBe(documentPartition('a', 'b#c'));
    expect(documentPartition('a%23b', 'c')).not.toBe(documentPartition('a#b', 'c'));
    expect(organizationPartition('a#DOC')).not.toBe(documentPartition('a', 'DOC'));
  });
});
