import { jsonBytes } from '#shared/api/answer-size.js';
import type { ConsentTextStore } from '#shared/consent/text-store.js';
import { assertCursorShape, type CursorKeySource } from '#shared/history/cursor.js';
import type { HistoryStore } from '#shared/history/store.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import { categoryConfigs } from '#shared/preferences/layers.js';
import type { EntryKey, StoredEntry } from '#shared/preferences/model.js';
import { type ErasureEntryStore, entryId, type PreferenceStore } from '#shared/preferences/store.js';
import { decodeExportCursor, type ExportPosition, encodeExportCursor, SENT_PREFIX } from './cursor.js';
import { type ExportRecord, type ExportUserResult, MAX_EXPORT_PAGE_BYTES, MAX_EXPORT_RECORDS } from './records.js';
import type { ExportUserRequest } from './routes/export-user.js';

/*
 * docs/api.md, users/export: everything the service holds of a user in an organization, page by
 * page: when their links were last revoked, their entries (and schedule), then their changes with
 * the consent texts those refer to, each text once. A page stops at MAX_EXPORT_RECORDS records or
 * MAX_EXPORT_PAGE_BYTES bytes, whichever comes first, after the last record that fits; the cursor
 * (cursor.ts) says where the next one starts. After an erasure completed, the export is its status
 * record alone.
 */

/** The last completed erasure of a user, while its status record exists. */
export interface ErasureLookup {
  lastCompleted(organizationId: string, userId: string): Promise<(ExportRecord & { kind: 'erasure' }) | undefined>;
}

export interface ExportDeps {
  entries: Pick<ErasureEntryStore, 'listUserEntries'>;
  reader: Pick<PreferenceStore, 'getEntries'>;
  history: Pick<HistoryStore, 'list'>;
  texts: Pick<ConsentTextStore, 'getTexts'>;
  revocations: { revokedBefore(organizationId: string, userId: string): Promise<number | undefined> };
  erasures?: ErasureLookup | undefined;
  keys: CursorKeySource;
  now?: () => Date;
  /** A page's bounds (tests make them small). */
  limits?: { records: number; bytes: number };
}

/** Entries read per step: one BatchGetItem. */
const ENTRIES_PER_STEP = 100;
/** Reads one page may make before it answers what it has (a long run of deleted entries). */
const MAX_STEPS = 50;

/** A page of records, within its bounds. */
class Page {
  readonly records: ExportRecord[] = [];
  private bytes = 0;
  constructor(private readonly limits: { records: number; bytes: number }) {}

  get room(): number {
    return this.limits.records - this.records.length;
  }

  /** Adds the records if all of them fit (a first record always does), else nothing. */
  addAll(records: readonly ExportRecord[]): boolean {
    const size = records.reduce((sum, record) => sum + jsonBytes(record) + 1, 0);
    const fits = this.records.length + records.length <= this.limits.records && this.bytes + size <= this.limits.bytes;
    if (!fits && this.records.length > 0) return false;
    this.records.push(...records);
    this.bytes += size;
    return true;
  }
}

/** An entry's records: the entry (when it holds a channel) and, at the organization level, the schedule. */
const entryRecords = (entry: StoredEntry | undefined): ExportRecord[] => {
  if (!entry) return [];
  const records: ExportRecord[] = [];
  const categories = categoryConfigs(entry.categories);
  if (Object.keys(entry.config).length > 0 || Object.keys(categories).length > 0) {
    records.push({
      kind: 'entry',
      documentId: entry.documentId,
      scope: entry.scope,
      config: entry.config,
      categories,
      updatedAt: entry.updatedAt,
    });
  }
  if (entry.schedule) records.push({ kind: 'schedule', schedule: entry.schedule });
  return records;
};

/** The user index's key of an entry: where its Query resumes after it. */
const indexKey = (key: EntryKey): Record<string, string> => ({
  ...entryTableKey(key),
  organizationId: key.organizationId,
  userId: key.userId,
});

export const exportUser = async (deps: ExportDeps, request: ExportUserRequest): Promise<ExportUserResult> => {
  const { organizationId, userId, cursor } = request;
  const exportedAt = (deps.now?.() ?? new Date()).toISOString();
  const page = new Page(deps.limits ?? { records: MAX_EXPORT_RECORDS, bytes: MAX_EXPORT_PAGE_BYTES });
  const answer = (position?: ExportPosition) => async (): Promise<ExportUserResult> => ({
    organizationId,
    userId,
    exportedAt,
    records: page.records,
    ...(position
      ? { nextCursor: encodeExportCursor(position, organizationId, userId, await deps.keys.keyring()) }
      : {}),
  });

  let position: ExportPosition;
  if (cursor !== undefined) {
    assertCursorShape(cursor);
    position = decodeExportCursor(cursor, organizationId, userId, await deps.keys.keyring());
  } else {
    const erasure = await deps.erasures?.lastCompleted(organizationId, userId);
    if (erasure) {
      page.addAll([erasure]);
      return answer()();
    }
    const revokedBefore = await deps.revocations.revokedBefore(organizationId, userId);
    if (revokedBefore !== undefined) {
      page.addAll([{ kind: 'linkRevocation', revokedBefore: new Date(revokedBefore * 1000).toISOString() }]);
    }
    position = { phase: 'entries', sent: [], pending: [] };
  }

  for (let step = 0; step < MAX_STEPS && page.room > 0; step += 1) {
    if (position.pending.length > 0) {
      const texts = await deps.texts.getTexts(organizationId, position.pending);
      while (position.pending.length > 0) {
        const sha256 = position.pending[0] as string;
        const text = texts.get(sha256);
        if (text !== undefined && !page.addAll([{ kind: 'consentText', sha256, text }])) return answer(position)();
        position.pending.shift();
        position.sent.push(sha256.slice(0, SENT_PREFIX));
      }
      continue;
    }
    if (position.phase === 'texts') return answer()();

    if (position.phase === 'entries') {
      const listed = await deps.entries.listUserEntries(
        organizationId,
        userId,
        Math.min(ENTRIES_PER_STEP, page.room),
        position.key,
      );
      const read = new Map((await deps.reader.getEntries(listed.keys)).map((entry) => [entryId(entry), entry]));
      for (const key of listed.keys) {
        if (!page.addAll(entryRecords(read.get(entryId(key))))) return answer(position)();
        position.key = indexKey(key);
      }
      position = listed.lastKey ? { ...position, key: listed.lastKey } : nextPhase(position, 'changes');
      continue;
    }

    const listed = await deps.history.list({ organizationId, userId, limit: page.room, startKey: position.key });
    for (const [index, change] of listed.changes.entries()) {
      if (!page.addAll([{ kind: 'change', ...change }])) return answer(position)();
      const at = listed.positions?.[index];
      if (at) position.key = at;
      const hash = change.evidence.via === 'api' ? change.evidence.textSha256 : undefined;
      if (hash && !position.pending.includes(hash) && !position.sent.includes(hash.slice(0, SENT_PREFIX))) {
        position.pending.push(hash);
      }
    }
    position = listed.lastKey ? { ...position, key: listed.lastKey } : nextPhase(position, 'texts');
  }
  if (position.phase === 'texts' && position.pending.length === 0) return answer()();
  return answer(position)();
};

const nextPhase = ({ sent, pending }: ExportPosition, phase: ExportPosition['phase']): ExportPosition => ({
  phase,
  sent,
  pending,
});

/**
 * The whole export at once (the preference page's "Download my data"): every page's records,
 * as one answer of the export's shape without a cursor.
 */
export const exportAll = async (
  deps: ExportDeps,
  organizationId: string,
  userId: string,
): Promise<ExportUserResult> => {
  const first = await exportUser(deps, { organizationId, userId });
  const records = [...first.records];
  let cursor = first.nextCursor;
  while (cursor !== undefined) {
    const page = await exportUser(deps, { organizationId, userId, cursor });
    records.push(...page.records);
    cursor = page.nextCursor;
  }
  return { organizationId, userId, exportedAt: first.exportedAt, records };
};
