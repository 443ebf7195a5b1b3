import { LOCALES } from '#shared/api/locales.js';
import { operationById } from '#tools/openapi/operations.js';
import { heaviestBranding } from '../support/heaviest-page.js';
import type { CallCounter, CallSummary } from './counting.js';
import { ORG } from './ids.js';
import { cpuSecondsSince } from './lambda-cpu.js';
import { heaviestPolicy, renderBench } from './page-render.js';
import { goal, type Section, section } from './report.js';
import { fmtMs, fmtNum, fmtRatio, median } from './stats.js';

const SET_POLICY = operationById('setPolicy').path;
const SET_BRANDING = operationById('setBranding').path;
const SET = operationById('setConfig').path;
const GET = operationById('getConfig').path;
const SET_SCHEDULE = operationById('setSchedule').path;
const CREATE_LINKS = operationById('createLinks').path;
const MIGRATE = operationById('migrateDocument').path;
const MIGRATION_STATUS = operationById('getMigrationStatus').path;
const CATEGORIES = 10;
/** The page budget for a policy of ten categories, in every language (issue 48), zone suggestions included. */
const PAGE_LIMIT_BYTES = 40 * 1024;
/** A language's render against English's: the catalogs may cost little more than the English words did. */
const RENDER_RATIO_LIMIT = 1.2;

type Call = (
  path: string,
  data: unknown,
) => Promise<{ status: number; text: string; body: { result?: { data: unknown } } }>;

interface Run {
  ms: number;
  cpuSeconds: number;
  summary: CallSummary;
  bytes: number;
  status: number;
}

/**
 * Section 4, the links in emails (contract 13): the preference page (GET /p) and the one-click
 * unsubscribe (POST /u) against the goal of one read call, and one write for the POST, beyond
 * what a migrated document needs (one read per hop, measured on a document migrated once); the
 * page's size for a policy of ten categories (and the largest schedule part: seven quiet-hours
 * rules, a snooze and a digest); their time and CPU against config/get of the same
 * user, document and category in the same run (the baseline: the API's read of the same state).
 */
export const linkPagesSection = async (
  call: Call,
  counter: CallCounter,
  { rounds }: { rounds: number },
): Promise<Section> => {
  const organizationId = `${ORG}-links`;
  const must = async (path: string, data: unknown) => {
    const response = await call(path, data);
    if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status} ${response.text.slice(0, 300)}`);
    return response.body.result?.data;
  };
  await must(SET_POLICY, { organizationId, policy: heaviestPolicy(CATEGORIES) });
  // Branded at branding/set's limits (the logo aside: a URL in the page, its bytes apart).
  await must(SET_BRANDING, { organizationId, branding: heaviestBranding });
  const users = ['reader', 'clicker', 'migrated'];
  await must(SET, { organizationId, userIds: users, documentIds: ['doc-l'], config: { email: 'MINE' } });
  await must(SET, { organizationId, userIds: users, config: { inbox: 'NONE' }, category: 'category-3' });
  // The page's largest schedule part: seven quiet-hours rules, a snooze and a digest, in a long zone name.
  await must(SET_SCHEDULE, {
    organizationId,
    userIds: ['reader'],
    schedule: {
      timeZone: 'America/Argentina/ComodRivadavia',
      quietHours: Array.from({ length: 7 }, (_, i) => ({
        days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
        start: `${String(12 + i).padStart(2, '0')}:00`,
        end: `${String(12 + i).padStart(2, '0')}:30`,
        channels: ['inbox', 'email', 'slack'],
      })),
      snoozeUntil: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      digest: { channels: ['inbox', 'email', 'slack'], cadence: 'weekly', at: '08:00', day: 'wed' },
    },
  });
  const links = (await must(CREATE_LINKS, {
    organizationId,
    userIds: users,
    documentId: 'doc-l',
    category: 'category-3',
  })) as Record<string, { unsubscribeUrl: string; preferencesUrl: string }>;
  // One link's document migrated once: its pages follow the forwarding record.
  await must(SET, { organizationId, userIds: ['migrated'], documentIds: ['doc-m'], config: { slack: 'ALL' } });
  const migrated = (await must(CREATE_LINKS, { organizationId, userIds: ['migrated'], documentId: 'doc-m' })) as Record<
    string,
    { preferencesUrl: string }
  >;
  const { migrationId } = (await must(MIGRATE, { organizationId, documentId: 'doc-m', newDocumentId: 'doc-m2' })) as {
    migrationId: string;
  };
  for (let tries = 0; tries < 600; tries++) {
    const status = (await must(MIGRATION_STATUS, { organizationId, migrationId })) as { status: string };
    if (status.status === 'completed') break;
    if (status.status === 'failed') throw new Error('the bench migration failed');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  const timed = async (request: () => Promise<{ status: number; text: string }>): Promise<Run> => {
    const from = counter.mark();
    const cpu = process.cpuUsage();
    const started = performance.now();
    const response = await request();
    return {
      ms: performance.now() - started,
      cpuSeconds: cpuSecondsSince(cpu),
      summary: counter.summary(from),
      bytes: Buffer.byteLength(response.text),
      status: response.status,
    };
  };
  const fetchText = async (url: string, init?: RequestInit) => {
    const response = await fetch(url, { redirect: 'manual', ...init });
    return { status: response.status, text: await response.text() };
  };
  const pageGet = () => fetchText(links.reader?.preferencesUrl as string);
  const oneClick = () =>
    fetchText(links.clicker?.unsubscribeUrl as string, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
  const migratedGet = () => fetchText(migrated.migrated?.preferencesUrl as string);
  const baseline = () =>
    call(GET, { organizationId, userId: 'reader', documentIds: ['doc-l'], category: 'category-3' }).then((r) => ({
      status: r.status,
      text: r.text,
    }));
  // Warm each function (keys, credential cache, code paths) before the measured rounds.
  for (const request of [pageGet, oneClick, migratedGet, baseline]) await timed(request);
  const runs: Record<'page' | 'click' | 'migrated' | 'get', Run>[] = [];
  for (let round = 0; round < rounds; round++) {
    const order =
      round % 2 === 0
        ? (['get', 'page', 'click', 'migrated'] as const)
        : (['migrated', 'click', 'page', 'get'] as const);
    const run = {} as Record<'page' | 'click' | 'migrated' | 'get', Run>;
    for (const name of order) {
      run[name] = await timed({ page: pageGet, click: oneClick, migrated: migratedGet, get: baseline }[name]);
      if (run[name].status >= 400) throw new Error(`${name}: HTTP ${run[name].status}`);
    }
    runs.push(run);
  }

  // The heaviest page in every language: one link per locale, fetched once each.
  const localized = {} as Record<(typeof LOCALES)[number], number>;
  for (const locale of LOCALES) {
    const made = (await must(CREATE_LINKS, {
      organizationId,
      userIds: ['reader'],
      documentId: 'doc-l',
      category: 'category-3',
      locale,
    })) as Record<string, { preferencesUrl: string }>;
    const answer = await fetchText(made.reader?.preferencesUrl as string);
    if (answer.status !== 200) throw new Error(`page in ${locale}: HTTP ${answer.status}`);
    localized[locale] = Buffer.byteLength(answer.text);
  }
  const renders = renderBench(CATEGORIES, { renders: rounds * 50 });

  const s = section('link-pages', '4. Links in emails: the preference page and one-click unsubscribe');
  const max = (pick: (run: (typeof runs)[number]) => number) => Math.max(...runs.map(pick));
  const readsOf = (run: Run) => run.summary.reads - run.summary.credentialReads;
  const row = (name: string, key: 'page' | 'click' | 'migrated' | 'get') => [
    name,
    fmtMs(median(runs.map((r) => r[key].ms))),
    fmtMs(median(runs.map((r) => r[key].cpuSeconds * 1000))),
    fmtNum(max((r) => readsOf(r[key]))),
    fmtNum(max((r) => r[key].summary.writes)),
    fmtNum(max((r) => r[key].bytes)),
  ];
  s.tables.push({
    title: `A policy of ${CATEGORIES} categories, the page's user with 7 quiet-hours rules, a snooze and a digest; medians of ${rounds} rounds taking turns (calls: the most in a round)`,
    columns: ['request', 'time', 'CPU (this process)', 'read calls', 'write calls', 'answer bytes'],
    rows: [
      row('baseline: config/get, one document and category (with its policy read)', 'get'),
      row('GET /p/{token}: the preference page', 'page'),
      row('POST /u/{token}: one-click unsubscribe', 'click'),
      row('GET /p/{token}, document migrated once', 'migrated'),
    ],
  });
  const pageReads = max((r) => readsOf(r.page));
  const clickReads = max((r) => readsOf(r.click));
  const clickWrites = max((r) => r.click.summary.writes);
  const migratedReads = max((r) => readsOf(r.migrated));
  const pageBytes = Math.max(
    max((r) => r.page.bytes),
    ...Object.values(localized),
  );
  const english = renders.en.cpuMicros;
  const renderRatio = Math.max(...LOCALES.map((locale) => renders[locale].cpuMicros / english));
  s.tables.push({
    title: `The heaviest page in each language: its answer over HTTP, and its render alone in this process (median CPU of ${rounds * 50} renders)`,
    columns: ['language', 'answer bytes', 'render CPU', 'against English'],
    rows: LOCALES.map((locale) => [
      locale,
      fmtNum(localized[locale]),
      `${fmtNum(Math.round(renders[locale].cpuMicros))} µs`,
      fmtRatio(renders[locale].cpuMicros / english),
    ]),
  });
  const cpuRatio = median(runs.map((r) => r.page.cpuSeconds / r.get.cpuSeconds));
  s.goals.push(
    goal('page GET: read calls', fmtNum(pageReads), '<= 1', pageReads <= 1),
    goal(
      'page GET: write calls',
      fmtNum(max((r) => r.page.summary.writes)),
      '0',
      max((r) => r.page.summary.writes) === 0,
    ),
    goal('one-click POST: read calls', fmtNum(clickReads), '<= 1', clickReads <= 1),
    goal('one-click POST: write calls', fmtNum(clickWrites), '<= 1', clickWrites <= 1),
    goal(
      'page GET of a document migrated once: read calls',
      fmtNum(migratedReads),
      '<= 2 (one more per hop)',
      migratedReads <= 2,
    ),
    goal(
      `page size, policy of ${CATEGORIES} categories, largest schedule, every language`,
      `${fmtNum(pageBytes)} bytes`,
      `< ${PAGE_LIMIT_BYTES}`,
      pageBytes < PAGE_LIMIT_BYTES,
    ),
    goal('page GET CPU against config/get of the same state', fmtRatio(cpuRatio), '<= 2x', cpuRatio <= 2),
    goal(
      'page render CPU, slowest language against English',
      fmtRatio(renderRatio),
      `<= ${RENDER_RATIO_LIMIT}x`,
      renderRatio <= RENDER_RATIO_LIMIT,
    ),
  );
  s.notes.push(
    "The calls are those of the handlers' own DynamoDB client; the link keys come from the Secrets Manager stand-in " +
      "and are cached 60 s, as deployed, so a warm page reads none. CPU is this process's (server, handlers, client), " +
      'config/get with the policy cache off (it reads the policy: two read calls).',
  );
  s.data = {
    rounds,
    pageReads,
    clickReads,
    clickWrites,
    migratedReads,
    pageBytes,
    cpuRatio,
    localized,
    renders,
    renderRatio,
    medians: Object.fromEntries(
      (['get', 'page', 'click', 'migrated'] as const).map((key) => [
        key,
        { ms: median(runs.map((r) => r[key].ms)), cpuMs: median(runs.map((r) => r[key].cpuSeconds * 1000)) },
      ]),
    ),
  };
  return s;
};
