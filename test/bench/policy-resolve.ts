import { operationById } from '#tools/openapi/operations.js';
import type { CallCounter, CallSummary } from './counting.js';
import { ORG, users } from './ids.js';
import { cpuSecondsSince } from './lambda-cpu.js';
import { goal, type Section, section } from './report.js';
import { fmtMs, fmtNum, fmtRatio, median } from './stats.js';

const SET = operationById('setConfig').path;
const RESOLVE = operationById('resolveConfig').path;
const SET_POLICY = operationById('setPolicy').path;
const CATEGORIES = 100;
/** The category the activity belongs to: one of the policy's, with a layer in half the entries. */
const CATEGORY = 'category-7';

type Call = (path: string, data: unknown) => Promise<{ status: number; text: string }>;

interface Run {
  cpuSeconds: number;
  ms: number;
  summary: CallSummary;
}

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
  const must = async (path: string, data: unknown) => {
    const response = await call(path, data);
    if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status} ${response.text.slice(0, 300)}`);
  };
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
  const timed = async (data: unknown): Promise<Run> => {
    const from = counter.mark();
    const cpu = process.cpuUsage();
    const started = performance.now();
    await must(RESOLVE, data);
    return { ms: performance.now() - started, cpuSeconds: cpuSecondsSince(cpu), summary: counter.summary(from) };
  };
  // Warm both ways (the function's credential cache and code paths) before the measured rounds.
  await timed(today);
  await timed(categorized);
  const runs: { today: Run; categorized: Run }[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      const a = await timed(today);
      runs.push({ today: a, categorized: await timed(categorized) });
    } else {
      const b = await timed(categorized);
      runs.push({ today: await timed(today), categorized: b });
    }
  }

  const s = section('policy-resolve', `3. Resolve with a category and a policy of ${CATEGORIES} categories`);
  const readsOf = (run: Run) => run.summary.reads - run.summary.credentialReads;
  const row = (name: string, pick: (r: (typeof runs)[number]) => Run) => [
    name,
    fmtMs(median(runs.map((r) => pick(r).ms))),
    fmtMs(median(runs.map((r) => pick(r).cpuSeconds * 1000))),
    fmtNum(Math.max(...runs.map((r) => readsOf(pick(r))))),
    fmtNum(Math.max(...runs.map((r) => pick(r).summary.keysRead))),
  ];
  s.tables.push({
    title: `${fmtNum(userCount)} users of one document; medians of ${rounds} rounds taking turns`,
    columns: ['resolve', 'time', 'CPU (this process)', 'read calls (max)', 'keys read'],
    rows: [
      row('today: no category, organization without a policy', (r) => r.today),
      row(`category ${CATEGORY}, policy of ${CATEGORIES} categories`, (r) => r.categorized),
    ],
  });
  const bound = Math.ceil((2 * userCount) / 100) + 1;
  const reads = Math.max(...runs.map((r) => readsOf(r.categorized)));
  const cpuRatio = median(runs.map((r) => r.categorized.cpuSeconds / r.today.cpuSeconds));
  s.goals.push(
    goal(
      'resolve with category and policy: read calls',
      fmtNum(reads),
      `<= ${bound} (ceil(2N/100) + 1)`,
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
