import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import fc from 'fast-check';
import { ApiError } from '#shared/api/errors.js';
import { INVALID_CURSOR_MESSAGE } from '#shared/history/cursor.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { historyKeys } from '#shared/history/keys.js';
import { getHistory } from '#shared/history/read.js';
import { logger } from '#shared/platform/logger.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';
import { FUZZ_RUNS, FUZZ_TIMEOUT_MS } from '../support/fuzz.js';

// Every paginated route takes a cursor back from its caller: whatever comes back, forged or
// altered, the answer is a page of that caller's own data or INVALID_ARGUMENT, never a storage
// error (which answered 500 and paged an operator for a request's mistake). Against DynamoDB
// Local, which refuses keys as DynamoDB does. Seeded: a failure names the seed to replay it.

let dynamo: TestDynamo;
let store: DynamoHistoryStore;
const ORG = 'acme';
const USER = 'alice';
const DOCUMENT = 'doc-1';

/** The history of alice on doc-1 and at the organization level: three pages of two. */
const seed = async () => {
  for (let i = 0; i < 6; i++) {
    const documentId = i % 2 === 0 ? DOCUMENT : null;
    const changedAt = `2026-01-01T00:00:0${i}.000Z`;
    await store.record(
      {
        sequenceNumber: String(100 + i),
        change: {
          changeId: `c-${i}`,
          organizationId: ORG,
          userId: USER,
          documentId,
          scope: documentId ? 'document' : 'organization',
          category: null,
          cause: 'set',
          changedAt,
          changedBy: 'ak_1',
          before: {},
          after: { inbox: 'ALL' },
        },
      },
      2_000_000_000,
    );
  }
};

beforeAll(async () => {
  dynamo = await startTestDynamo();
  store = new DynamoHistoryStore(dynamo.doc, (await dynamo.createTables()).history);
  await seed();
});
afterAll(async () => {
  await dynamo?.close();
});

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A real cursor of a request (documentId omitted, a document, or the organization level). */
const realCursor = async (documentId: string | null | undefined): Promise<string> => {
  const page = await getHistory({ store }, { organizationId: ORG, userId: USER, documentId, limit: 1 });
  if (!page.nextCursor) throw new Error('no second page');
  return page.nextCursor;
};

const decoded = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));

/** Values a forger puts in a key part: empty, other users', oversized, wrong types, odd text. */
const part = fc.oneof(
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

const forged = (valid: Record<string, string>) =>
  fc.oneof(
    // Any text at all.
    fc.string({ minLength: 1, maxLength: 200 }),
    fc.base64String({ minLength: 1, maxLength: 200 }).map((text) => text.replace(/=+$/, '') || 'A'),
    // Any JSON, encoded as the service encodes cursors.
    fc.json({ maxDepth: 3 }).map((json) => Buffer.from(json).toString('base64url')),
    // The real cursor with one part replaced (the forger's likeliest try).
    fc.tuple(fc.constantFrom(...Object.keys(valid)), part).map(([name, value]) => encode({ ...valid, [name]: value })),
    // The real cursor with parts replaced, removed or added.
    fc
      .record({
        replace: fc.dictionary(fc.constantFrom(...Object.keys(valid)), part, { maxKeys: 3 }),
        remove: fc.subarray(Object.keys(valid)),
        add: fc.dictionary(fc.constantFrom('pk', 'sk', 'entryPk', 'entrySk', 'x', '__proto__'), part, { maxKeys: 2 }),
      })
      .map(({ replace, remove, add }) => {
        const key: Record<string, unknown> = { ...valid, ...replace };
        for (const name of remove) delete key[name];
        for (const [name, value] of Object.entries(add)) Object.defineProperty(key, name, { value, enumerable: true });
        return encode(key);
      }),
  );

describe.each([
  ['every entry', undefined],
  ['one document', DOCUMENT],
  ['the organization level', null],
] as const)('config/history cursors of %s', (_name, documentId) => {
  test(
    'a forged or altered cursor answers a page of the same user, or INVALID_ARGUMENT; never a storage error',
    async () => {
      const errors = jest.spyOn(logger, 'error');
      const valid = decoded(await realCursor(documentId)) as Record<string, string>;
      await fc.assert(
        fc.asyncProperty(forged(valid), fc.constantFrom(undefined, DOCUMENT, null), async (cursor, askedFor) => {
          try {
            const page = await getHistory(
              { store },
              { organizationId: ORG, userId: USER, documentId: askedFor, cursor },
            );
            for (const change of page.changes) expect(change).toMatchObject({ organizationId: ORG, userId: USER });
          } catch (error) {
            expect(error).toBeInstanceOf(ApiError);
            expect(error).toMatchObject({ status: 'INVALID_ARGUMENT', message: INVALID_CURSOR_MESSAGE });
          }
        }),
        { numRuns: Math.ceil(FUZZ_RUNS / 3), seed: 0x5eed + (documentId === undefined ? 0 : documentId ? 1 : 2) },
      );
      expect(errors).not.toHaveBeenCalled();
      errors.mockRestore();
    },
    FUZZ_TIMEOUT_MS,
  );
});

test('the reported case: a valid partition with an empty sort key is refused before DynamoDB', async () => {
  const valid = decoded(await realCursor(undefined));
  await expect(
    getHistory({ store }, { organizationId: ORG, userId: USER, cursor: encode({ ...valid, sk: '' }) }),
  ).rejects.toMatchObject({ status: 'INVALID_ARGUMENT' });
  // And a real next page still works, with keys exactly as written.
  const { pk, sk } = historyKeys(
    { organizationId: ORG, userId: USER, documentId: null },
    '2026-01-01T00:00:05.000Z',
    '105',
  );
  const page = await getHistory({ store }, { organizationId: ORG, userId: USER, cursor: encode({ pk, sk }) });
  expect(page.changes.map((change) => change.changeId)).toEqual(['c-4', 'c-3', 'c-2', 'c-1', 'c-0']);
});
