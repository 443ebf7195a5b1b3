import pMap from 'p-map';
import type { Schedule } from '#shared/schedules/schema.js';
import { ALONE_WRITE_CONCURRENCY } from './batching.js';
import type { ChannelConfig, EntryKey } from './model.js';
import { CategoryLayersFull, entryId, type PreferenceStore, type ScheduleStore, type WriteMeta } from './store.js';

/** One change of many written together: an entry's channels of one layer (`meta.category`), or its schedule. */
export type EntryChange = { key: EntryKey; meta: WriteMeta } & (
  | { config: ChannelConfig; schedule?: never }
  | { schedule: Schedule | null; config?: never }
);

/** What became of a change: written (or left to a newer stored value), or refused for a full set of category layers. */
export type ChangeOutcome = 'written' | 'layersFull';

/**
 * The port for writing many entries' changes at once (an import's page): each change is written
 * exactly as setChannels or setSchedule writes it alone, with the same conditions, and one
 * entry's changes in the order given. `stored`: the entries read before (by entryId), which
 * tells an adapter which writes create their entry. `writesPerSecond`: the most an adapter's
 * calls send in any stretch of the call, not only on average over it (an import's bound).
 */
export interface EntryChangeWriter {
  writeChanges(
    changes: readonly EntryChange[],
    stored: ReadonlySet<string>,
    writesPerSecond?: number,
  ): Promise<ChangeOutcome[]>;
}

/**
 * The changes written one call each, through the single-entry ports: one entry's changes in
 * order, entries side by side. The outcome of each change, by its index.
 */
export const writeEachAlone = async (
  store: Pick<PreferenceStore, 'setChannels'> & Pick<ScheduleStore, 'setSchedule'>,
  changes: readonly EntryChange[],
): Promise<ChangeOutcome[]> => {
  const outcomes: ChangeOutcome[] = changes.map(() => 'written');
  const byEntry = new Map<string, number[]>();
  changes.forEach((change, index) => {
    const id = entryId(change.key);
    byEntry.set(id, [...(byEntry.get(id) ?? []), index]);
  });
  await pMap(
    byEntry.values(),
    async (indexes) => {
      for (const index of indexes) {
        const change = changes[index] as EntryChange;
        try {
          if (change.config) await store.setChannels(change.key, change.config, change.meta);
          else await store.setSchedule(change.key, change.schedule ?? null, change.meta);
        } catch (error) {
          if (!(error instanceof CategoryLayersFull)) throw error;
          outcomes[index] = 'layersFull';
        }
      }
    },
    { concurrency: ALONE_WRITE_CONCURRENCY },
  );
  return outcomes;
};
