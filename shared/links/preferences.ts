import {
  CHANNELS,
  type Channel,
  DELIVERY_SETTINGS,
  type DeliverySetting,
  type FullChannelConfig,
} from '#shared/api/channels.js';
import { negotiateLocale } from '#shared/api/locales.js';
import { countLinkChange } from '#shared/platform/metrics.js';
import type { PageAnswer, PublicRequest } from '#shared/platform/public-page.js';
import { linkActor } from '#shared/preferences/change-attribution.js';
import type { ChannelConfig } from '#shared/preferences/model.js';
import { setSchedule } from '#shared/preferences/schedules.js';
import type { PreferenceStore, ScheduleStore } from '#shared/preferences/store.js';
import { linkEvidence } from './evidence.js';
import { type FormFields, parseForm } from './form.js';
import { type Said, said, wordsFor } from './i18n/words.js';
import type { KeyringSource } from './keyring.js';
import type { LinkStateReader } from './link-state.js';
import { resetFromLink, setFromLink } from './link-writes.js';
import { asksForLogo, logoAnswer } from './logo-answer.js';
import { openWithState } from './opened.js';
import { pageModel, type Row } from './page-model.js';
import { brandOf } from './pages/brand.js';
import { EMBED_SCRIPT_HASH, embedScript } from './pages/embed.js';
import { badRequestPage, fixedPagesIn } from './pages/fixed-pages.js';
import { pageHeaders } from './pages/layout.js';
import { DEFAULT_VALUE, DOWNLOAD_FIELD, DOWNLOAD_VALUE, preferencePage } from './pages/preference-page.js';
import { scheduleSection } from './pages/schedule-section.js';
import { SCHEDULE_FIELDS, scheduleChange, scheduleFieldKind } from './schedule-form.js';

/*
 * /p/{token}, the preference page (docs/api.md, The pages: /u/{token} and /p/{token}). GET shows it: one read
 * (link-state.ts). POST saves its form: what the person changed, layer by layer, each through
 * config/set's or config/reset's code (cause `link`), then answers 303 to the page, which shows
 * the saved state. A form with a field or a value the page does not have is refused whole (400,
 * nothing written); a channel locked meanwhile, or a category gone from the policy, is left as it is.
 * The schedule part (time zone and quiet hours, schedule-form.ts) is checked whole before any
 * write, then written through schedule/set's code with the same cause and actor.
 */

export interface PreferencePageDeps {
  keys: KeyringSource;
  reader: LinkStateReader;
  store: PreferenceStore;
  schedules: ScheduleStore;
  defaults: FullChannelConfig;
  now?: () => Date;
  /** Keep the client's address and user agent in the evidence (the `linkEvidence` setting); default yes. */
  keepClient?: boolean;
  /**
   * Everything the service holds of the user in the organization (users/export's records, all
   * pages): "Download my data". Without it the page does not offer it.
   */
  download?: ((organizationId: string, userId: string) => Promise<unknown>) | undefined;
}

/** The downloaded file's name. */
export const DOWNLOAD_FILE_NAME = 'my-notification-data.json';
/** A download larger than this is refused with a page that says so (Lambda answers at most 6 MB). */
export const MAX_DOWNLOAD_BYTES = 5_000_000;

type Choice = DeliverySetting | typeof DEFAULT_VALUE;
const CHOICES: readonly string[] = [...DELIVERY_SETTINGS, DEFAULT_VALUE];

export const PREFERENCE_REASONS = {
  unknownField: said('reason.unknownField'),
  value: said('reason.value'),
  repeated: said('reason.repeated'),
  dataTooLarge: said('reason.dataTooLarge'),
} as const;

// `org`, `doc`, or either with `/<category id>`; then the channel; then what the page showed
// (`~<choice>`, in the select's own name: no hidden field per cell). A `was:` field, which pages
// of earlier releases send beside the select, says the same.
const CELL_FIELD =
  /^(was:)?((?:org|doc)(?:\/[a-z0-9][a-z0-9._-]{0,63})?):(inbox|email|slack)(?:~(default|ALL|MINE|NONE))?$/;

/** The page's form as the evidence's page version describes it: its fields and the values they take. */
const PAGE_FORM = JSON.stringify([CELL_FIELD.source, CHOICES, SCHEDULE_FIELDS]);

interface Submitted {
  /** Per `<row>:<channel>`, the choice sent and the one the page showed (if it said). */
  cells: Map<string, { row: string; channel: Channel; value?: Choice; was?: Choice }>;
}

type FormCheck = { ok: true; form: Submitted } | { ok: false; reason: Said };

const readForm = (fields: FormFields): FormCheck => {
  const cells: Submitted['cells'] = new Map();
  const seen = new Set<string>();
  for (const [name, value] of fields) {
    // The schedule part's fields: read by schedule-form.ts (its checkbox groups repeat).
    const kind = scheduleFieldKind(name);
    if (kind !== undefined) {
      if (kind === 'single' && seen.has(name)) return { ok: false, reason: PREFERENCE_REASONS.repeated };
      seen.add(name);
      continue;
    }
    const match = CELL_FIELD.exec(name);
    if (!match || (match[1] !== undefined && match[4] !== undefined)) {
      return { ok: false, reason: PREFERENCE_REASONS.unknownField };
    }
    const [, was, row, channel, shown] = match as unknown as [
      string,
      string | undefined,
      string,
      Channel,
      Choice | undefined,
    ];
    const key = `${row}:${channel}`;
    // Each cell's value once and what it showed once, however the form says them.
    const valueSlot = was === undefined ? `value ${key}` : `was ${key}`;
    if (seen.has(valueSlot) || (shown !== undefined && seen.has(`was ${key}`))) {
      return { ok: false, reason: PREFERENCE_REASONS.repeated };
    }
    seen.add(valueSlot);
    if (shown !== undefined) seen.add(`was ${key}`);
    if (!CHOICES.includes(value)) return { ok: false, reason: PREFERENCE_REASONS.value };
    const cell = cells.get(key) ?? { row, channel };
    if (was === undefined) cell.value = value as Choice;
    else cell.was = value as Choice;
    if (shown !== undefined) cell.was = shown;
    cells.set(key, cell);
  }
  return { ok: true, form: { cells } };
};

/** What to write per row: the channels to set (with their values) and those to reset. */
const changesOf = (rows: readonly Row[], form: Submitted) => {
  const byKey = new Map(rows.map((row) => [row.key, row]));
  const changes = new Map<Row, { set: ChannelConfig; reset: Channel[] }>();
  for (const { row: key, channel, value, was } of form.cells.values()) {
    const row = byKey.get(key);
    const cell = row?.cells.find((candidate) => candidate.channel === channel);
    // A row or channel the page no longer has (a category removed, a channel locked): left alone.
    if (!row || !cell || cell.lock || value === undefined) continue;
    const stored: Choice = cell.value ?? DEFAULT_VALUE;
    // Only what the person changed: not a value the page showed (the stored one may be newer).
    if (value === (was ?? stored) || value === stored) continue;
    const change = changes.get(row) ?? { set: {}, reset: [] };
    if (value === DEFAULT_VALUE) change.reset.push(channel);
    else change.set[channel] = value;
    changes.set(row, change);
  }
  return changes;
};

export const preferencesPage =
  ({
    keys,
    reader,
    store,
    schedules,
    defaults,
    now = () => new Date(),
    keepClient = true,
    download,
  }: PreferencePageDeps) =>
  async (request: PublicRequest): Promise<PageAnswer> => {
    const at = now();
    const logo = asksForLogo(request.query, request.method);
    const opened = await openWithState({ keys, reader }, request.token, at, { entries: !logo }, 'preferences');
    // The 404 page is the same for every failure: its language comes from the request alone.
    const notFound = (): PageAnswer => ({
      status: 404,
      body: fixedPagesIn(negotiateLocale({ acceptLanguage: request.acceptLanguage })).notFound,
    });
    if (!opened) return notFound();
    const { link, state } = opened;
    if (logo) return logoAnswer(state, request.query) ?? notFound();
    const brand = brandOf(state.branding);
    // Framed by the organization's app only, which the script tells its height and its saves.
    const origins = state.branding?.branding.embedOrigins ?? [];
    const framed = origins.length > 0 ? { frameAncestors: origins, scriptHash: EMBED_SCRIPT_HASH } : {};
    const headers = pageHeaders(brand, framed);
    const withHeaders = (answer: PageAnswer): PageAnswer => (headers ? { ...answer, headers } : answer);
    const words = wordsFor(
      negotiateLocale({
        link: link.locale,
        acceptLanguage: request.acceptLanguage,
        organization: state.branding?.branding.defaultLocale,
      }),
    );
    const model = pageModel(link, state, defaults, words);

    const stored = state.organization?.schedule;
    if (request.method === 'GET') {
      const extra = scheduleSection(words, stored, at);
      const script = origins.length > 0 ? embedScript(origins) : undefined;
      const body = preferencePage({
        words,
        model,
        saved: request.query.saved === '1',
        extra,
        brand,
        script,
        download: download !== undefined,
      });
      return withHeaders({ status: 200, body });
    }

    const badRequest = (reason: Said): PageAnswer =>
      withHeaders({ status: 400, body: badRequestPage(words, reason, brand) });
    const parsed = await parseForm(request.body, request.contentType);
    if (!parsed.ok) return badRequest(parsed.reason);
    if (parsed.fields.some(([name]) => name === DOWNLOAD_FIELD)) {
      const [only, ...more] = parsed.fields;
      if (!download || more.length > 0 || only?.[1] !== DOWNLOAD_VALUE) {
        return badRequest(PREFERENCE_REASONS.unknownField);
      }
      const file = JSON.stringify(await download(link.organizationId, link.userId), null, 2);
      if (Buffer.byteLength(file, 'utf8') > MAX_DOWNLOAD_BYTES) return badRequest(PREFERENCE_REASONS.dataTooLarge);
      return { status: 200, body: file, download: DOWNLOAD_FILE_NAME };
    }
    const checked = readForm(parsed.fields);
    if (!checked.ok) return badRequest(checked.reason);
    const changes = changesOf([...model.organization, ...model.document], checked.form);
    const schedule = scheduleChange(parsed.fields, stored, at);
    if (schedule.kind === 'invalid') return badRequest(schedule.reason);
    const evidence = linkEvidence({
      page: 'page',
      link,
      locale: words.locale,
      form: PAGE_FORM,
      client: request.client ?? {},
      keepClient,
    });
    const write = (row: Row) => ({ link, target: row.target, policy: state.policy, evidence, signal: request.signal });
    for (const [row, change] of changes) {
      if (CHANNELS.some((channel) => change.set[channel] !== undefined)) {
        await setFromLink({ store, now: () => at }, write(row), change.set);
      }
      if (change.reset.length > 0) await resetFromLink({ store, now: () => at }, write(row), change.reset);
    }
    if (schedule.kind === 'set') {
      await setSchedule(
        { store: schedules, cause: 'link', evidence, now: () => at },
        { organizationId: link.organizationId, userIds: [link.userId], schedule: schedule.schedule },
        linkActor(link.keyId),
        { signal: request.signal },
      );
    }
    if (changes.size > 0 || schedule.kind === 'set') countLinkChange();
    // The page again, from storage: what it shows is what was saved.
    return withHeaders({ status: 303, body: '', location: '?saved=1' });
  };
