import type { Channel } from '#shared/api/channels.js';
import type { ChannelConfig, StoredEntry } from '#shared/preferences/model.js';
import { entryId } from '#shared/preferences/store.js';
import type { Schedule } from '#shared/schedules/schema.js';
import type { ImportChange } from './rows.js';

/*
 * What each change of a page does to the stored entries (contract 15.1): a change whose values
 * are already stored writes nothing (importing a file again records nothing), unless the stored
 * values carry the page's own write time: then a run that died before saving the page wrote
 * them, and they count as applied. Changes are judged in the file's order against the entries as
 * the earlier lines of the page leave them, so that two lines about one channel end as the later says.
 */

export type Verdict = 'write' | 'applied' | 'unchanged';

interface Layer {
  config: ChannelConfig;
  channelAt: Partial<Record<Channel, string>>;
}

interface Simulated {
  layers: Map<string, Layer>;
  schedule: Schedule | null;
  scheduleAt: string | undefined;
}

/** The all-categories layer's name in the simulation (no category id is empty). */
const ALL = '';

/** Keys in one order, so that two equal schedules compare equal whatever order their fields were stored in. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );

const simulated = (entry: StoredEntry | undefined): Simulated => {
  const layers = new Map<string, Layer>();
  if (entry) {
    layers.set(ALL, { config: { ...entry.config }, channelAt: { ...entry.channelAt } });
    for (const [category, layer] of Object.entries(entry.categories ?? {})) {
      layers.set(category, { config: { ...layer.config }, channelAt: { ...layer.channelAt } });
    }
  }
  return { layers, schedule: entry?.schedule ?? null, scheduleAt: entry?.scheduleAt };
};

/**
 * Judges the page's changes in order. `stamp`: the page's write time, when a run may already
 * have written with it; a dry run and a page's first run pass none.
 */
export const judgeChanges = (
  changes: readonly ImportChange[],
  stored: readonly StoredEntry[],
  stamp: string | undefined,
): Verdict[] => {
  const entries = new Map<string, Simulated>();
  const found = new Map(stored.map((entry) => [entryId(entry), entry]));
  return changes.map((change) => {
    const id = entryId(change.key);
    let entry = entries.get(id);
    if (!entry) {
      entry = simulated(found.get(id));
      entries.set(id, entry);
    }
    let same = true;
    let stamped = stamp !== undefined;
    if (change.config) {
      const name = change.category ?? ALL;
      const layer = entry.layers.get(name) ?? { config: {}, channelAt: {} };
      entry.layers.set(name, layer);
      for (const [channel, value] of Object.entries(change.config) as [Channel, string][]) {
        if (layer.config[channel] !== value) same = false;
        if (layer.channelAt[channel] !== stamp) stamped = false;
        layer.config[channel] = value as ChannelConfig[Channel];
      }
    }
    if (change.schedule !== undefined) {
      if (canonical(entry.schedule) !== canonical(change.schedule)) same = false;
      if (entry.scheduleAt !== stamp) stamped = false;
      entry.schedule = change.schedule;
    }
    if (!same) return 'write';
    return stamped ? 'applied' : 'unchanged';
  });
};
