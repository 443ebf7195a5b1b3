import { operationById } from '#tools/openapi/operations.js';
import type { CallCounter } from './counting.js';
import { ORG, users } from './ids.js';
import { type Call, cpuRatioOf, mustCall, pairedResolves, pairRow, readsOf } from './paired-resolves.js';
import { goal, type Section, section } from './report.js';
import { fmtNum, fmtRatio } from './stats.js';

const SET = operationById('setConfig').path;
const SET_POLICY = operationById('setPolicy').path;
const CATEGORIES = 100;
/** The category the activity belongs to: one of the policy's, with a layer in half the entries. */
const CATEGORY = 'category-7';

/**
 * Contract 11's cost: config/resolve for N users with a category, in an organization with a
 * policy of 100 categories, against today's resolve (no category, no policy) of the same stored
 * entries in an organization without one. Rounds take turns; CPU is this process's (server,
 * handlers, client). The policy cache is off (POLICY_CACHE_SECONDS=0): every request reads the
 * policy, the worst case the read bound allows for.
 */
export const policyResolveSection = async (
  call: Call,
  counter: CallCounter,
  { userCount, rounds }: { userCount: number; rounds: number },
): Promise<Section> => {
  const ids = users(userCount, 'policy-user');
  const half = ids.slice(0, userCount / 2);
  const plain = `${ORG}-no-policy`;
  const withPolicy = `${ORG}-policy`;
  const must = mustCall(call);
  // The same stored entries in both organizations: every user on the document, half of them at
  // the organization level, half with a layer for the activity's category.
  for (const organizationId of [plain, withPolicy]) {
    await must(SET, { organizationId, userIds: ids, documentIds: ['doc-p'], config: { email: 'MINE', slack: 'NONE' } });
    await must(SET, { organizationId, userIds: half, config: { inbox: 'MINE' } });
    await must(SET, {
      organizationId,
      userIds: half,
      documentIds: ['doc-p'],
      category: CATEGORY,
      config: { email: 'NONE' },
    });
  }
  await must(SET_POLICY, {
    organizationId: withPolicy,
    policy: {
      channels: { slack: { value: 'MINE' } },
      categories: Object.fromEntries(
        Array.from({ length: CATEGORIES }, (_, i) => [
          `category-${i}`,
          {
            label: `Category ${i}`,
            description: 'What this kind of notification is about, for the people who get it.',
            channels: { email: { value: 'ALL', locked: i % 10 === 0 }, inbox: { value: 'MINE' } },
          },
        ]),
      ),
    },
  });
  const activity = { involvedUserIds: ids.slice(0, 10) };
  const today = { organizationId: plain, documentId: 'doc-p', userIds: ids, activity };
  const categorized = { organizationId: withPolicy, documentId: 'doc-p', userIds: ids, activity, category: CATEGORY };
  const runs = await pairedResolves(call, counter, { base: today, measured: categorized, rounds });

  const s = section('policy-resolve', `3. Resolve with a category and a policy of ${CATEGORIES} categories`);
  s.tables.push({
    title: `${fmtNum(userCount)} users of one document; medians of ${rounds} rounds taking turns`,
    columns: ['resolve', 'time', 'CPU (this process)', 'read calls (max)', 'keys read'],
    rows: [
      pairRow('today: no category, organization without a policy', runs, 'base', { keys: true }),
      pairRow(`category ${CATEGORY}, policy of ${CATEGORIES} categories`, runs, 'measured', { keys: true }),
    ],
  });
  // Two entries per user and the policy, 100 keys per batched read.
  const bound = Math.ceil((2 * userCount + 1) / 100);
  const reads = Math.max(...runs.map((r) => readsOf(r.measured)));
  const cpuRatio = cpuRatioOf(runs);
  s.goals.push(
    goal(
      'resolve with category and policy: read calls',
      fmtNum(reads),
      `<= ${bound} (ceil((2N + 1) / 100))`,
      reads <= bound,
    ),
    goal('resolve with category and policy: CPU against today', fmtRatio(cpuRatio), '<= 1.2x', cpuRatio <= 1.2),
  );
  s.notes.push(
    'Both organizations hold the same entries (each user on the document, half at the organization level, half with a layer for the category). The CPU ratio is the median of the paired rounds; the policy cache is off, so each request reads the policy.',
  );
  s.data = { runs, reads, cpuRatio, bound };
  return s;
};
