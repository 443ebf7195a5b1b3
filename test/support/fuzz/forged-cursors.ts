import fc from 'fast-check';

const unsealedCursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * Values a forger puts in a key part of a cursor (a DynamoDB LastEvaluatedKey, sealed):
 * empty, other users', oversized, wrong types, odd text.
 */
const cursorPart = fc.oneof(
  fc.constantFrom('', ' ', '#', 'H#acme#bob', 'DOC#acme#doc-1', 'ORG#acme', 'x'.repeat(2100), '\u0000', '\ud800'),
  fc.constantFrom(
    '2026-01-01T00:00:00.000Z#',
    '2026-01-01T00:00:00.000Z#12',
    `9999-99-99T99:99:99.999Z#${'9'.repeat(40)}`,
  ),
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.constant(null),
  fc.object({ maxDepth: 1 }),
);

/**
 * Cursors a forger makes from a real one (`valid`, opened): any text, any JSON, the real one
 * altered. `seal` seals a key as the service does (with its key, as if it had leaked: what
 * opens is still checked whole); any JSON is also sent unsealed, as cursors once were.
 */
export const forgedCursor = (valid: Record<string, unknown>, seal: (key: unknown) => string) =>
  fc.oneof(
    // Any text at all.
    fc.string({ minLength: 1, maxLength: 200 }),
    fc.base64String({ minLength: 1, maxLength: 200 }).map((text) => text.replace(/=+$/, '') || 'A'),
    // Any JSON, unsealed and sealed.
    fc.json({ maxDepth: 3 }).map((json) => unsealedCursor(JSON.parse(json))),
    fc.json({ maxDepth: 3 }).map((json) => seal(JSON.parse(json))),
    // The real key, unsealed (what a cursor was before it was sealed).
    fc.constant(unsealedCursor(valid)),
    // The real cursor with one part replaced (the forger's likeliest try).
    fc
      .tuple(fc.constantFrom(...Object.keys(valid)), cursorPart)
      .map(([name, value]) => seal({ ...valid, [name]: value })),
    // The real cursor with parts replaced, removed or added.
    fc
      .record({
        replace: fc.dictionary(fc.constantFrom(...Object.keys(valid)), cursorPart, { maxKeys: 3 }),
        remove: fc.subarray(Object.keys(valid)),
        add: fc.dictionary(fc.constantFrom('pk', 'sk', 'entryPk', 'entrySk', 'x', '__proto__'), cursorPart, {
          maxKeys: 2,
        }),
      })
      .map(({ replace, remove, add }) => {
        const key: Record<string, unknown> = { ...valid, ...replace };
        for (const name of remove) delete key[name];
        for (const [name, value] of Object.entries(add)) Object.defineProperty(key, name, { value, enumerable: true });
        return seal(key);
      }),
  );
