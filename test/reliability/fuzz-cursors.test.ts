import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import fc from 'fast-check';
import { ApiError } from '#shared/api/errors.js';
import { decodeCursor, encodeCursor, type HistoryKey, INVALID_CURSOR_MESSAGE } from '#shared/history/cursor.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { historyKeys } from '#shared/history/keys.js';
import { getHistory } from '#shared/history/read.js';
import { newKeyringDocument, staticKeyring } from '#shared/links/keyring.js';
import { logger } from '#shared/platform/logger.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';
import { forgedCursor } from '../support/fuzz/forged-cursors.js';
import { FUZZ_RUNS, FUZZ_TIMEOUT_MS } from '../support/fuzz/runs.js';

// Every paginated route takes a cursor back from its caller: whatever comes back, forged or
// altered (or sealed with the deployment's key, as if it had leaked), the answer is a page of that caller's own data or INVALID_ARGUMENT, never a storage
// error (which answered 500 and paged an operator for a request's mistake). Against DynamoDB
// Local, which refuses keys as DynamoDB does. Seeded: a failure names the seed to replay it.

let dynamo: TestDynamo;
let store: DynamoHistoryStore;
const ORG = 'acme';
const USER = 'alice';
const DOCUMENT = 'doc-1';
const keys = staticKeyring(newKeyringDocument());
const keyring = await keys.keyring();

/** The history of alice on doc-1 and at the organization level: three pages of two. */
const seed = async () => {
  for (let i = 0; i < 6; i++) {
    const documentId = i % 2 === 0 ? DOCUMENT : null;
    const changedAt = `2026-01-01T00:00:0${i}.000Z`;
    await store.recordAll([
      {
        recorded: {
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
            evidence: { via: 'api' },
            before: {},
            after: { inbox: 'ALL' },
          },
        },
        expiresAt: 2_000_000_000,
      },
    ]);
  }
};

beforeAll(async () => {
  dynamo = await startTestDynamo({ tables: 'own' });
  store = new DynamoHistoryStore(dynamo.doc, (await dynamo.createTables()).history);
  await seed();
});
afterAll(async () => {
  await dynamo?.close();
});

/** `key` sealed for alice's request of `documentId` (with the deployment's key, as if it had leaked). */
const seal = (key: unknown, documentId?: string | null) =>
  encodeCursor(key as HistoryKey, { organizationId: ORG, userId: USER, documentId }, keyring);

/** The key of a real cursor of a request (documentId omitted, a document, or the organization level). */
const realKey = async (documentId: string | null | undefined): Promise<HistoryKey> => {
  const scope = { organizationId: ORG, userId: USER, documentId };
  const page = await getHistory({ store, keys }, { ...scope, limit: 1 });
  if (!page.nextCursor) throw new Error('no second page');
  return decodeCursor(page.nextCursor, scope, keyring);
};

describe.each([
  ['every entry', undefined],
  ['one document', DOCUMENT],
  ['the organization level', null],
] as const)('config/history cursors of %s', (_name, documentId) => {
  test(
    'a forged or altered cursor answers a page of the same user, or INVALID_ARGUMENT; never a storage error',
    async () => {
      const errors = jest.spyOn(logger, 'error');
      const valid = await realKey(documentId);
      const forged = forgedCursor(valid, (key) => seal(key, documentId));
      await fc.assert(
        fc.asyncProperty(forged, fc.constantFrom(undefined, DOCUMENT, null), async (cursor, askedFor) => {
          try {
            const page = await getHistory(
              { store, keys },
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
  const valid = await realKey(undefined);
  await expect(
    getHistory({ store, keys }, { organizationId: ORG, userId: USER, cursor: seal({ ...valid, sk: '' }) }),
  ).rejects.toMatchObject({ status: 'INVALID_ARGUMENT' });
  // And a real next page still works, with keys exactly as written.
  const { pk, sk } = historyKeys(
    { organizationId: ORG, userId: USER, documentId: null },
    '2026-01-01T00:00:05.000Z',
    '105',
  );
  const page = await getHistory({ store, keys }, { organizationId: ORG, userId: USER, cursor: seal({ pk, sk }) });
  expect(page.changes.map((change) => change.changeId)).toEqual(['c-4', 'c-3', 'c-2', 'c-1', 'c-0']);
});
