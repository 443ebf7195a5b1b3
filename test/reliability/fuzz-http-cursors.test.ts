import { afterAll, beforeAll, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { decodeCursor, encodeCursor, type HistoryKey, INVALID_CURSOR_MESSAGE } from '#shared/history/cursor.js';
import type { Keyring } from '#shared/links/keyring.js';
import { forgedCursor } from '../support/fuzz/forged-cursors.js';
import { assertConcurrently, FUZZ_TIMEOUT_MS, HTTP_FUZZ_RUNS } from '../support/fuzz/runs.js';
import { twinKeyring } from '../support/links.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// The cursors of every paginated route (config/history is the one), forged over HTTP against the
// local server, with a history written through the API and recorded from the stream: whatever
// comes back, the answer is a page of the caller's own user or 400 INVALID_ARGUMENT naming the
// cursor, never a 5xx nor another user's change. Among the forgeries, real cursors of another
// user, another organization and another filter, and keys sealed with the twin's own key. Seeded (FUZZ_SEED), like every fuzz here.

const HISTORY = '/v2/notifications/config/history';
const SET = '/v2/notifications/config/set';
let service: LocalService;
let keyring: Keyring;

const history = (data: Record<string, unknown>) => service.call(HISTORY, data);

const until = async (what: string, done: () => Promise<boolean>) => {
  for (const end = Date.now() + 30_000; !(await done()); ) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

interface Request {
  organizationId: string;
  userId: string;
  documentId?: string | null;
}

/** The cursor of a first page of one change for a request, and the key it holds. */
const realCursor = async (data: Request): Promise<{ cursor: string; key: HistoryKey }> => {
  const answer = await history({ ...data, limit: 1 });
  const cursor = (answer.body.result!.data as { nextCursor?: string }).nextCursor;
  if (!cursor) throw new Error(`no second page for ${JSON.stringify(data)}`);
  return { cursor, key: decodeCursor(cursor, data, keyring) };
};

beforeAll(async () => {
  service = await startLocalService();
  keyring = await twinKeyring(service);
  // alice in acme: three changes on doc-1, three at the organization level; bob and globex's alice too.
  for (const [organizationId, userId] of [
    ['acme', 'alice'],
    ['acme', 'bob'],
    ['globex', 'alice'],
  ] as const) {
    for (const inbox of ['ALL', 'MINE', 'NONE'] as const) {
      for (const documentIds of [['doc-1'], undefined]) {
        const set = await service.call(SET, {
          organizationId,
          userIds: [userId],
          ...(documentIds ? { documentIds } : {}),
          config: { inbox },
        });
        expect(set.status).toBe(200);
      }
    }
  }
  await until('the history of the sets', async () => {
    const counts = await Promise.all(
      [
        ['acme', 'alice'],
        ['acme', 'bob'],
        ['globex', 'alice'],
      ].map(
        async ([organizationId, userId]) =>
          ((await history({ organizationId, userId })).body.result!.data as { changes: unknown[] }).changes.length,
      ),
    );
    return counts.every((count) => count === 6);
  });
}, 120_000);
afterAll(async () => {
  await service?.close();
});

test(
  `${HTTP_FUZZ_RUNS} forged cursors over HTTP (fuzz-cursors.test.ts forges more against the store): a page of the caller's own user, or INVALID_ARGUMENT; never a 5xx`,
  async () => {
    const filters = [{}, { documentId: 'doc-1' }, { documentId: null }];
    const mine = filters.map((filter) => ({ organizationId: 'acme', userId: 'alice', ...filter }));
    const own = await Promise.all(mine.map(realCursor));
    // Real cursors that are not the request's: another user's, another organization's.
    const others = [
      ...(await Promise.all(filters.map((filter) => realCursor({ organizationId: 'acme', userId: 'bob', ...filter })))),
      ...(await Promise.all(
        filters.map((filter) => realCursor({ organizationId: 'globex', userId: 'alice', ...filter })),
      )),
    ];
    // Forgeries sealed with the twin's key for the request each real cursor came from (as if the key had leaked).
    const cursor = fc.oneof(
      ...own.map(({ key }, i) =>
        forgedCursor(key, (forged) => encodeCursor(forged as HistoryKey, mine[i] as Request, keyring)),
      ),
      fc.constantFrom(...[...own, ...others].map(({ cursor: real }) => real)),
    );
    const seen = new Map<string, number>();
    await assertConcurrently(
      fc.record({
        cursor,
        filter: fc.constantFrom(...filters),
        limit: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
      }),
      async ({ cursor, filter, limit }) => {
        const answer = await history({
          organizationId: 'acme',
          userId: 'alice',
          ...filter,
          cursor,
          ...(limit === undefined ? {} : { limit }),
        });
        if (answer.status === 200) {
          const { changes } = answer.body.result!.data as { changes: { organizationId: string; userId: string }[] };
          for (const change of changes) {
            if (change.organizationId !== 'acme' || change.userId !== 'alice')
              throw new Error(`another user's change: ${JSON.stringify(change)}`);
          }
          seen.set('page', (seen.get('page') ?? 0) + 1);
          return;
        }
        expect({ status: answer.status, error: answer.body.error }).toEqual({
          status: 400,
          error: { status: 'INVALID_ARGUMENT', message: INVALID_CURSOR_MESSAGE },
        });
        seen.set('refused', (seen.get('refused') ?? 0) + 1);
      },
      { numRuns: HTTP_FUZZ_RUNS },
    );
    // Both outcomes happen: the generator reaches valid cursors and refused ones.
    expect([...seen.keys()].sort()).toEqual(['page', 'refused']);
  },
  FUZZ_TIMEOUT_MS,
);
