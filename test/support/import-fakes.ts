import { Readable } from 'node:stream';
import type { Channel } from '#shared/api/channels.js';
import type { FilePart } from '#shared/files/store.js';
import type { JobKind } from '#shared/jobs/kind.js';
import type { JobQueue } from '#shared/jobs/queue.js';
import type { JobRecord } from '#shared/jobs/record.js';
import type { FailGuard, PageProgress, SeenRecord } from '#shared/jobs/record-updates.js';
import type { JobLock, JobRepository } from '#shared/jobs/repository.js';
import type { Policy } from '#shared/policy/model.js';
import { type ChangeOutcome, type EntryChange, writeEachAlone } from '#shared/preferences/entry-changes.js';
import { MAX_CATEGORY_LAYERS } from '#shared/preferences/layers.js';
import type { ChannelConfig, EntryKey, LayerChannels, StoredEntry } from '#shared/preferences/model.js';
import { CategoryLayersFull, entryId, type WriteMeta } from '#shared/preferences/store.js';
import type { Schedule } from '#shared/schedules/schema.js';

/*
 * In-memory stand-ins for what a job's consumer writes through (unit tests, no DynamoDB, no S3):
 * each keeps the conditions of the store it stands for that the engine and the import rely on
 * (the lease, a page's counts added once, a channel's write time), and lets a test make one call
 * throw, before or after it took effect, as a crash of the consumer there would.
 */

/** Throws the first time `when` holds; afterwards never. */
export class Crash {
  private fired = false;
  constructor(private readonly when: () => boolean) {}
  check(): void {
    if (this.fired || !this.when()) return;
    this.fired = true;
    throw new Error('injected crash');
  }
}

/** A kind's records as the DynamoDB repository keeps them, with its write conditions. */
export class MemoryJobRepository<R extends JobRecord> implements JobRepository<R> {
  readonly records = new Map<string, R>();
  saves = 0;
  /** Checked before a page's progress is saved, and after (the save took effect but its answer was lost). */
  crashBeforeSave?: Crash;
  crashAfterSave?: Crash;

  constructor(private readonly kind: Pick<JobKind<never, never, unknown>, 'idAttribute' | 'pageFields'>) {}

  private must(id: string): R {
    const record = this.records.get(id);
    if (!record) throw new Error(`no record ${id}`);
    return record;
  }

  private active(record: R): boolean {
    return record.status === 'pending' || record.status === 'in_progress';
  }

  private end(record: R, fields: Partial<JobRecord>): void {
    const ended = { ...record, ...fields } as unknown as Record<string, unknown>;
    for (const name of [
      'leaseOwner',
      'leaseUntil',
      'sweepResumes',
      'sweptAt',
      ...Object.keys(this.kind.pageFields ?? {}),
    ]) {
      delete ended[name];
    }
    this.records.set((record as unknown as Record<string, string>)[this.kind.idAttribute] as string, ended as R);
  }

  async create(record: R): Promise<void> {
    const id = (record as unknown as Record<string, string>)[this.kind.idAttribute] as string;
    if (this.records.has(id)) throw new Error(`${id} already exists`);
    this.records.set(id, structuredClone(record));
  }

  async createLocked(record: R): Promise<boolean> {
    await this.create(record);
    return true;
  }

  async get(id: string): Promise<R | undefined> {
    const record = this.records.get(id);
    return record && structuredClone(record);
  }

  async markQueued(id: string, at: string): Promise<void> {
    this.must(id).queuedAt = at;
  }

  async claimQueueing(): Promise<boolean> {
    throw new Error('not used by these tests');
  }

  async fail(id: string, reason: string, at: Date, guard: FailGuard): Promise<boolean> {
    const record = this.must(id);
    if (!this.active(record)) return false;
    if ('owner' in guard) {
      const free =
        record.leaseUntil === undefined || record.leaseUntil < at.getTime() || record.leaseOwner === guard.owner;
      if (!free || (guard.updatedAt !== undefined && record.updatedAt !== guard.updatedAt)) return false;
    }
    if ('onlyIfUnqueued' in guard && (record.status !== 'pending' || record.queuedAt !== undefined)) return false;
    this.end(record, { status: 'failed', error: reason, updatedAt: at.toISOString() });
    return true;
  }

  async listQuiet(): Promise<R[]> {
    return [];
  }

  async markResumed(_seen: SeenRecord): Promise<boolean> {
    throw new Error('not used by these tests');
  }

  async getLock(): Promise<JobLock | undefined> {
    return undefined;
  }

  async putLock(): Promise<boolean> {
    return true;
  }

  async releaseLock(): Promise<void> {}

  async releaseLocks(): Promise<void> {}

  async acquireLease(id: string, owner: string, until: number, now: Date): Promise<R | undefined> {
    const record = this.records.get(id);
    if (!record || !this.active(record)) return undefined;
    if (record.leaseUntil !== undefined && record.leaseUntil >= now.getTime() && record.leaseOwner !== owner) {
      return undefined;
    }
    Object.assign(record, {
      leaseOwner: owner,
      leaseUntil: until,
      status: 'in_progress',
      updatedAt: now.toISOString(),
      startedAt: record.startedAt ?? now.toISOString(),
    });
    return structuredClone(record);
  }

  async saveProgress(id: string, owner: string, progress: PageProgress): Promise<boolean> {
    this.crashBeforeSave?.check();
    const record = this.must(id);
    const saved = record.runs[progress.run];
    if (
      record.leaseOwner !== owner ||
      record.status !== 'in_progress' ||
      (saved !== undefined && saved >= progress.page)
    ) {
      return false;
    }
    const fields = record as unknown as Record<string, unknown>;
    for (const [counter, delta] of Object.entries(progress.counts)) {
      fields[counter] = ((fields[counter] as number | undefined) ?? 0) + delta;
    }
    Object.assign(fields, structuredClone(progress.fields ?? {}));
    record.runs = { ...record.runs, [progress.run]: progress.page };
    record.leaseUntil = progress.leaseUntil;
    record.updatedAt = progress.at;
    this.saves += 1;
    this.crashAfterSave?.check();
    return true;
  }

  async releaseLease(id: string, owner: string): Promise<void> {
    const record = this.must(id);
    if (record.leaseOwner !== owner) return;
    delete record.leaseOwner;
    delete record.leaseUntil;
  }

  async complete(id: string, owner: string, at: string): Promise<boolean> {
    const record = this.must(id);
    if (record.leaseOwner !== owner || record.status !== 'in_progress') return false;
    this.end(record, { status: 'completed', completedAt: at, updatedAt: at });
    return true;
  }

  async dropEndedPageFields(): Promise<string[]> {
    return [];
  }
}

/** Messages a job's consumer queued (continuations, watchdogs). */
export class MemoryQueue implements JobQueue {
  readonly sent: { id: string; delaySeconds?: number | undefined }[] = [];
  async send(id: string, delaySeconds?: number): Promise<void> {
    this.sent.push({ id, delaySeconds });
  }
}

/** The files bucket: whole files and files written in parts. */
export class MemoryFiles {
  readonly files = new Map<string, Buffer>();
  private readonly uploads = new Map<string, Map<number, Buffer>>();
  /** Whole files written so far. */
  puts = 0;
  /** Checked before each write of a whole file. */
  crashOnPut?: Crash;

  /** The file in small chunks, as a stream delivers it (a line spans chunks). */
  async read(key: string): Promise<Readable> {
    const body = this.files.get(key);
    if (!body) throw new Error(`NoSuchKey ${key}`);
    return Readable.from(
      (function* () {
        for (let at = 0; at < body.length; at += 64) yield body.subarray(at, at + 64);
      })(),
    );
  }

  async readAll(key: string): Promise<Buffer> {
    const body = this.files.get(key);
    if (!body) throw new Error(`NoSuchKey ${key}`);
    return body;
  }

  async uploadUrl(key: string, now = new Date()): Promise<{ url: string; expiresAt: string }> {
    return { url: `memory://files/${key}`, expiresAt: new Date(now.getTime() + 3_600_000).toISOString() };
  }

  async put(key: string, body: Buffer): Promise<void> {
    this.crashOnPut?.check();
    this.files.set(key, Buffer.from(body));
    this.puts += 1;
  }

  async startParts(key: string): Promise<string> {
    const uploadId = `${key}#${this.uploads.size}`;
    this.uploads.set(uploadId, new Map());
    return uploadId;
  }

  async putPart(_key: string, uploadId: string, partNumber: number, body: Buffer): Promise<FilePart> {
    this.uploads.get(uploadId)?.set(partNumber, Buffer.from(body));
    return { partNumber, etag: `"${partNumber}"` };
  }

  async completeParts(key: string, uploadId: string, parts: readonly FilePart[]): Promise<void> {
    const written = this.uploads.get(uploadId);
    if (!written) throw new Error(`NoSuchUpload ${uploadId}`);
    this.files.set(key, Buffer.concat(parts.map(({ partNumber }) => written.get(partNumber) ?? Buffer.alloc(0))));
    this.uploads.delete(uploadId);
  }

  text(key: string): string | undefined {
    return this.files.get(key)?.toString('utf8');
  }
}

/** A write the entries store took: what the history would record. */
export interface EntryWrite {
  key: EntryKey;
  config?: ChannelConfig;
  schedule?: Schedule | null;
  meta: WriteMeta;
}

/** Entries as the preference store keeps them: layers, per-channel write times, the schedule. */
export class MemoryEntries {
  readonly entries = new Map<string, StoredEntry>();
  readonly writes: EntryWrite[] = [];
  /** Checked before each write. */
  crashOnWrite?: Crash;

  async getEntries(keys: readonly EntryKey[]): Promise<StoredEntry[]> {
    return keys.flatMap((key) => {
      const entry = this.entries.get(entryId(key));
      return entry ? [structuredClone(entry)] : [];
    });
  }

  private entryOf(key: EntryKey, meta: WriteMeta): StoredEntry {
    const id = entryId(key);
    const entry = this.entries.get(id) ?? {
      ...key,
      scope: key.documentId === null ? 'organization' : 'document',
      config: {},
      updatedAt: meta.updatedAt,
      updatedBy: meta.updatedBy,
      version: 0,
    };
    this.entries.set(id, entry);
    return entry;
  }

  private touched(entry: StoredEntry, meta: WriteMeta): void {
    entry.version += 1;
    if (meta.updatedAt > entry.updatedAt) entry.updatedAt = meta.updatedAt;
    entry.updatedBy = meta.updatedBy;
  }

  /** Each change alone, as an adapter writes those its batches did not apply. */
  async writeChanges(changes: readonly EntryChange[]): Promise<ChangeOutcome[]> {
    return writeEachAlone(this, changes);
  }

  async setChannels(key: EntryKey, config: ChannelConfig, meta: WriteMeta): Promise<void> {
    this.crashOnWrite?.check();
    const existing = this.entries.get(entryId(key));
    const category = meta.category;
    if (
      category !== undefined &&
      !(existing?.categories && Object.hasOwn(existing.categories, category)) &&
      Object.keys(existing?.categories ?? {}).length >= MAX_CATEGORY_LAYERS
    ) {
      throw new CategoryLayersFull(key);
    }
    const entry = this.entryOf(key, meta);
    let layer: LayerChannels;
    if (category === undefined) {
      entry.channelAt ??= {};
      layer = entry as unknown as LayerChannels;
    } else {
      entry.categories ??= {};
      entry.categories[category] ??= { config: {}, channelAt: {} };
      layer = entry.categories[category] as LayerChannels;
    }
    const times = layer.channelAt as Partial<Record<Channel, string>>;
    for (const [channel, value] of Object.entries(config) as [Channel, NonNullable<ChannelConfig[Channel]>][]) {
      const at = times[channel];
      if (at !== undefined && at > meta.updatedAt) continue;
      layer.config[channel] = value;
      times[channel] = meta.updatedAt;
    }
    this.touched(entry, meta);
    this.writes.push({ key, config, meta });
  }

  async setSchedule(key: EntryKey, schedule: Schedule | null, meta: WriteMeta): Promise<void> {
    this.crashOnWrite?.check();
    const entry = this.entryOf(key, meta);
    if (entry.scheduleAt === undefined || entry.scheduleAt <= meta.updatedAt) {
      if (schedule === null) delete entry.schedule;
      else entry.schedule = structuredClone(schedule);
      entry.scheduleAt = meta.updatedAt;
    }
    this.touched(entry, meta);
    this.writes.push({ key, schedule, meta });
    // An entry left with nothing once its schedule is removed is deleted, as the store does.
    const layers = [entry.config, ...Object.values(entry.categories ?? {}).map((layer) => layer.config)];
    if (entry.schedule === undefined && layers.every((config) => Object.keys(config).length === 0)) {
      this.entries.delete(entryId(key));
    }
  }

  /** What each entry holds, without the times: the result two runs must agree on. */
  values(): Record<string, unknown> {
    return Object.fromEntries(
      [...this.entries.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([id, entry]) => [
          id,
          {
            config: entry.config,
            categories: Object.fromEntries(
              Object.entries(entry.categories ?? {}).map(([category, layer]) => [category, layer.config]),
            ),
            schedule: entry.schedule ?? null,
          },
        ]),
    );
  }
}

/** Consent texts by organization and hash. */
export class MemoryTexts {
  readonly texts = new Map<string, string>();
  async putText(organizationId: string, sha256: string, text: string): Promise<void> {
    this.texts.set(`${organizationId}/${sha256}`, text);
  }
}

export const policySource = (policy: Policy) => ({ get: async () => ({ policy }) });
